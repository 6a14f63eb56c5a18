import type { FastifyReply } from "fastify";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

const SPECIAL = /[&<>"']/;

// Most texts on a page (ids, times, amounts, addresses) hold nothing to escape: they are returned
// as they are, without a replace's allocation.
export const escapeHtml = (text: string): string =>
  SPECIAL.test(text) ? text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string) : text;

/** A small self-contained page: no scripts, no external assets. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}.error{color:#b00020}label{display:block;margin:.8rem 0 .3rem}
input{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box}button{margin-top:1rem;font-size:1rem;padding:.6rem 1.2rem}</style>
</head><body>${body}</body></html>`;
}

/** Checkout pages are opened by full-page redirect, never framed (docs/api.md, "The customer's way through"). */
export function sendPage(reply: FastifyReply, statusCode: number, title: string, body: string) {
  return reply
    .code(statusCode)
    .header("content-type", "text/html; charset=utf-8")
    .header("x-frame-options", "DENY")
    .header(
      "content-security-policy",
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
    )
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .send(htmlPage(title, body));
}
