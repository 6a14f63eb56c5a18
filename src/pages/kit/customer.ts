// The pages a merchant's customers see (payment links, the way back from the processor, errors):
// in the merchant's name, colour and logo, through the escaping template, without scripts. The
// one inline stylesheet is allowed by its hash, so the policy stays strict.
import { createHash } from "node:crypto";
import type { FastifyReply } from "fastify";
import { type Fragment, Html, html } from "./html.ts";

/** How a merchant appears on its customers' pages. */
export interface CustomerBrand {
  name: string;
  /** #rrggbb, or null for the service's own. */
  color: string | null;
  /** A path on this host, or null. */
  logoPath: string | null;
}

/** The service's own colour, for a merchant that chose none. */
export const DEFAULT_COLOR = "#3454d1";

/** Black or white, whichever reads better on `color` (WCAG relative luminance). */
export function inkOn(color: string): string {
  const channel = (offset: number) => {
    const value = Number.parseInt(color.slice(offset, offset + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.4 ? "#111111" : "#ffffff";
}

const stylesheet = (color: string) => `:root{--brand:${color};--on-brand:${inkOn(color)}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
header{background:var(--brand);color:var(--on-brand);padding:1rem}
header .inner,main{max-width:30rem;margin:0 auto}
header .inner{display:flex;align-items:center;gap:.75rem}
header img{max-height:2.5rem;max-width:8rem;background:#fff;border-radius:4px;padding:2px}
header .merchant{font-weight:700;font-size:1.15rem;overflow-wrap:anywhere}
main{padding:1rem}
.card{background:#fff;border:1px solid #d9dee4;border-radius:10px;padding:1.2rem;margin:1rem 0}
h1{font-size:1.35rem;margin:0 0 .5rem;overflow-wrap:anywhere}
.price{font-size:1.6rem;font-weight:700;margin:.5rem 0}
.muted{color:#5b6470}
label{display:block;font-weight:600;margin:.9rem 0 .3rem}
input{font:inherit;width:100%;padding:.6rem;border:1px solid #9aa3ad;border-radius:6px}
input[aria-invalid=true]{border-color:#b3261e}
.field-error{color:#b3261e;margin:.3rem 0 0}
.notice{border-radius:6px;padding:.7rem;margin:0 0 1rem;background:#f9dedc;color:#b3261e}
button,a.button{font:inherit;font-weight:600;width:100%;margin-top:1.2rem;padding:.8rem;border:0;border-radius:6px;background:var(--brand);color:var(--on-brand);cursor:pointer}
a.button{display:block;text-align:center;text-decoration:none}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
.status{font-size:1.1rem;font-weight:700}.status.ok{color:#1e7d3a}.status.bad{color:#b3261e}
footer{max-width:30rem;margin:0 auto;padding:0 1rem 2rem;color:#5b6470;font-size:.85rem}`;

/** How a page may be shown: framed by the dashboard's own preview, with a logo not yet saved. */
export interface CustomerPageOptions {
  preview?: boolean;
  /** The footer on where card details go: for pages on a payment's way, not the service's own. */
  footer?: boolean;
}

/** A customer page: the merchant's header, `body`, and a footer saying where card details go. */
export function customerPage(
  brand: CustomerBrand,
  title: string,
  body: Fragment,
  options: CustomerPageOptions = {},
): { text: string; csp: string } {
  // Ours, not input (a colour is #rrggbb, checked by the database too): it goes in as it is.
  const css = stylesheet(brand.color ?? DEFAULT_COLOR);
  const hash = createHash("sha256").update(css).digest("base64");
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${title} · ${brand.name}</title><style>${new Html(css)}</style></head>
<body><header><div class="inner">${brand.logoPath ? html`<img src="${brand.logoPath}" alt="">` : ""}<span class="merchant">${brand.name}</span></div></header>
<main>${body}</main>
${options.footer === false ? "" : html`<footer>Card details are entered on the payment processor's own page, never here.</footer>`}</body></html>`;
  return {
    text: page.text,
    csp: options.preview
      ? `default-src 'none'; style-src 'sha256-${hash}'; img-src 'self' data:; form-action 'none'; frame-ancestors 'self'; base-uri 'none'`
      : `default-src 'none'; style-src 'sha256-${hash}'; img-src 'self'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'`,
  };
}

export function sendCustomerPage(
  reply: FastifyReply,
  statusCode: number,
  brand: CustomerBrand,
  title: string,
  body: Fragment,
  options: CustomerPageOptions = {},
) {
  const page = customerPage(brand, title, body, options);
  return reply
    .code(statusCode)
    .type("text/html; charset=utf-8")
    .header("content-security-policy", page.csp)
    .header("x-frame-options", options.preview ? "SAMEORIGIN" : "DENY")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .send(page.text);
}
