// What every page shares: cookies, server-side sessions, CSRF tokens, form bodies, security
// headers, HTML error pages and the sign-in guard. All of it from maintained Fastify plugins.
import cookie from "@fastify/cookie";
import csrf from "@fastify/csrf-protection";
import formbody from "@fastify/formbody";
import session from "@fastify/session";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Accounts } from "../../accounts/module.ts";
import type { AccountKind, Principal, SessionAccount } from "../../accounts/principal.ts";
import type { Database } from "../../platform/db/database.ts";
import { RETRY_AFTER_SECONDS, toApiError } from "../../platform/http/error-handler.ts";
import { ApiError } from "../../platform/http/errors.ts";
import { SCRIPT, STYLESHEET } from "./assets.ts";
import { html } from "./html.ts";
import { type Audience, type Flash, layout, sendHtml } from "./layout.ts";
import { databaseSessionStore, type SigningIn } from "./session-store.ts";

declare module "fastify" {
  interface Session {
    accountId?: string;
    /** The request that signed in: its save makes the session row and its audit entry (never stored). */
    signingIn?: SigningIn;
    /** The account as it is now, read by the store with the session (and never stored). */
    account?: SessionAccount;
    address?: string;
    userAgent?: string;
    flash?: Flash | undefined;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The pages run beside the sandbox processor. */
    sandbox: boolean;
  }
}

const SESSION_COOKIE = "checkout_session";
const CSRF_COOKIE = "checkout_csrf";
const SESSION_MAX_AGE_MS = 12 * 3600 * 1000;

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; " +
  "frame-src 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface WebOptions {
  db: Database;
  accounts: Accounts;
  sessionSecret: string;
  /** PUBLIC_URL is https: cookies are Secure. */
  secure: boolean;
  /** PUBLIC_URL's host, the only one pages answer on; null (any host) while it is a local address. */
  publicHost: string | null;
  /** PROCESSOR=sandbox: every page says so, so nobody takes test payments for real ones. */
  sandbox: boolean;
}

/** Cookies, sessions, CSRF and forms for the scope it is called in (a page scope, never the API's). */
export async function installPageSupport(web: FastifyInstance, options: WebOptions): Promise<void> {
  await web.register(cookie, { secret: options.sessionSecret });
  await web.register(formbody);
  await web.register(session, {
    secret: options.sessionSecret,
    cookieName: SESSION_COOKIE,
    cookie: {
      httpOnly: true,
      sameSite: "lax",
      secure: options.secure,
      path: "/",
      maxAge: SESSION_MAX_AGE_MS,
    },
    store: databaseSessionStore(options.db, SESSION_MAX_AGE_MS),
    saveUninitialized: false,
    rolling: false,
  });
  await web.register(csrf, {
    sessionPlugin: "@fastify/cookie",
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: "/", sameSite: "strict", httpOnly: true, secure: options.secure, signed: true },
  });
  web.decorateRequest("principal", null);
  web.decorateRequest("sandbox", options.sandbox);
  // Pages are for people: their form schemas validate input but are not part of the API's OpenAPI.
  web.addHook("onRoute", (route) => {
    route.schema = { ...route.schema, hide: true };
  });

  web.addHook("onRequest", async (request, reply) => {
    reply.header("content-security-policy", PAGE_CSP);
    reply.header("x-frame-options", "DENY");
    reply.header("referrer-policy", "same-origin");
    reply.header("cache-control", "no-store");
    // The pages live on the service's own host. A SafeSite (a merchant's domain that
    // points here) must never show another merchant's users a sign-in form.
    if (options.publicHost && request.host.toLowerCase() !== options.publicHost) {
      throw new ApiError("NOT_FOUND", "There is no such page on this address.");
    }
  });
  // Every state-changing request carries the token of a form this service rendered.
  web.addHook("preValidation", (request, reply, done) => {
    if (request.method === "POST") web.csrfProtection(request, reply, done);
    else done();
  });

  web.setErrorHandler((error, request, reply) => {
    const audience: Audience = request.url.startsWith("/operator") ? "operator" : "dashboard";
    const csrfRefused = (error as { code?: string }).code?.startsWith("FST_CSRF_");
    const apiError = csrfRefused
      ? new ApiError(
          "FORBIDDEN",
          "This form has expired or did not come from this site. Go back, reload the page and try again.",
        )
      : toApiError(error as Error, request);
    if (apiError.clientFault) request.log.info({ code: apiError.code }, apiError.message);
    else request.log.error({ err: error }, "page failed");
    if (apiError.statusCode === 503) reply.header("retry-after", RETRY_AFTER_SECONDS);
    const message = apiError.clientFault
      ? apiError.message
      : "Something went wrong on our side. Try again in a moment.";
    return sendHtml(
      reply,
      apiError.statusCode,
      layout(request, reply, {
        audience,
        title: `Error ${apiError.statusCode}`,
        body: html`<h1>${errorTitle(apiError.statusCode)}</h1><p><a href="/${audience}">Back</a></p>`,
        error: message,
      }),
    );
  });
}

const errorTitle = (status: number) =>
  status === 403
    ? "Not allowed"
    : status === 404
      ? "Not found"
      : status === 429
        ? "Too many attempts"
        : status >= 500
          ? "Something went wrong"
          : "That did not work";

/** The stylesheet and script, public and cacheable. */
export function assetRoutes(app: FastifyInstance): void {
  const serve = (body: string, type: string) => async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .type(type)
      .header("cache-control", "public, max-age=3600")
      .header("x-content-type-options", "nosniff")
      .send(body);
  app.get("/assets/style.css", { schema: { hide: true } }, serve(STYLESHEET, "text/css; charset=utf-8"));
  app.get("/assets/app.js", { schema: { hide: true } }, serve(SCRIPT, "text/javascript; charset=utf-8"));
}

/** Guards a scope: only a signed-in account of `kind`, as it is now (a removed one is signed out). */
export function requireSignIn(accounts: Accounts, kind: AccountKind) {
  const login = kind === "merchant" ? "/dashboard/login" : "/operator/login";
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { account } = request.session;
    const principal = account ? accounts.signIn.principalOf(account) : undefined;
    if (!principal || principal.kind !== kind) {
      return reply.redirect(login, 303);
    }
    request.principal = principal;
    // Where two-factor sign-in is required, nothing but the account page (and signing out) opens
    // until it is on.
    const home = kind === "merchant" ? "/dashboard" : "/operator";
    const path = request.url.split("?")[0] ?? "";
    if (principal.twoFactorRequired && !principal.twoFactorOn && !path.startsWith(`${home}/account`)) {
      return reply.redirect(`${home}/account`, 303);
    }
  };
}
