import type { FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "../../accounts/principal.ts";
import { type Fragment, type Html, html } from "./html.ts";

export type Audience = "dashboard" | "operator";

interface NavItem {
  href: string;
  label: string;
  show?: (principal: Principal) => boolean;
}

const NAV: Record<Audience, NavItem[]> = {
  dashboard: [
    { href: "/dashboard", label: "Overview" },
    { href: "/dashboard/payments", label: "Payments" },
    { href: "/dashboard/disputes", label: "Disputes" },
    { href: "/dashboard/payment-links", label: "Payment links" },
    { href: "/dashboard/branding", label: "Branding" },
    { href: "/dashboard/developers", label: "Developers" },
    { href: "/dashboard/users", label: "Users", show: (p) => p.role === "owner" },
    { href: "/dashboard/audit", label: "Audit log", show: (p) => p.role === "owner" },
    { href: "/dashboard/privacy", label: "Privacy", show: (p) => p.role === "owner" },
    { href: "/dashboard/account", label: "Account" },
  ],
  operator: [
    { href: "/operator", label: "Groups" },
    { href: "/operator/reconciliation", label: "Reconciliation" },
    { href: "/operator/deliveries", label: "Failed deliveries" },
    { href: "/operator/health", label: "Health" },
    { href: "/operator/audit", label: "Audit log" },
    { href: "/operator/account", label: "Account" },
  ],
};

export interface Flash {
  kind: "ok" | "error";
  text: string;
}

/** A message for the next page this session sees (the form posted, then redirected). */
export function setFlash(request: FastifyRequest, flash: Flash): void {
  request.session.flash = flash;
}

function takeFlash(request: FastifyRequest): Flash | undefined {
  const flash = request.session.flash;
  if (flash) request.session.flash = undefined;
  return flash;
}

const notice = (flash: Flash | undefined) =>
  flash
    ? html`<div class="notice ${flash.kind}" role="${flash.kind === "error" ? "alert" : "status"}">${flash.text}</div>`
    : "";

const tokens = new WeakMap<FastifyReply, string>();

/**
 * The hidden field every form carries (a CSRF token on every form, docs/security.md). One token per
 * answer: without a secret cookie yet, each call would mint a new secret and only the last form
 * on the page would work.
 */
export function csrfField(reply: FastifyReply) {
  let token = tokens.get(reply);
  if (!token) {
    token = reply.generateCsrf();
    tokens.set(reply, token);
  }
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function layout(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { audience: Audience; title: string; body: Fragment; narrow?: boolean; error?: string | undefined },
): Html {
  const principal = request.principal;
  const current = request.routeOptions.url ?? "";
  const nav = principal
    ? NAV[page.audience]
        .filter((item) => !item.show || item.show(principal))
        .map(
          (item) =>
            html`<a href="${item.href}" ${current === item.href || (item.href !== `/${page.audience}` && current.startsWith(item.href)) ? html`aria-current="page"` : ""}>${item.label}</a>`,
        )
    : "";
  const who = principal
    ? html`<span class="who"><span>${principal.email}${principal.role ? ` · ${principal.role}` : ""}</span>
<form method="post" action="/${page.audience}/logout">${csrfField(reply)}<button type="submit">Sign out</button></form></span>`
    : "";
  const flash = page.error ? { kind: "error" as const, text: page.error } : takeFlash(request);
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · ${page.audience === "dashboard" ? "Checkout dashboard" : "Checkout console"}</title>
<link rel="stylesheet" href="/assets/style.css"><script src="/assets/app.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="top"><span class="brand">${page.audience === "dashboard" ? "Checkout" : "Checkout console"}</span>${request.sandbox ? html`<span class="badge pending" id="sandbox-marker" title="PROCESSOR=sandbox: no real money moves">Sandbox</span>` : ""}
<nav aria-label="Main">${nav}</nav>${who}</header>
<main id="main"${page.narrow ? html` class="narrow"` : ""}>${notice(flash)}${page.body}</main></body></html>`;
}

export function sendHtml(reply: FastifyReply, statusCode: number, page: Html) {
  return reply.code(statusCode).type("text/html; charset=utf-8").send(page.text);
}

/** A page of one audience: the layout around `body`, sent with `statusCode`. */
export const pageSender =
  (audience: Audience) =>
  (request: FastifyRequest, reply: FastifyReply, title: string, body: Fragment, statusCode = 200) =>
    sendHtml(reply, statusCode, layout(request, reply, { audience, title, body }));
