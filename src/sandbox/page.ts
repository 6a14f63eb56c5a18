import type { FastifyReply } from "fastify";

/** The sandbox is a stand-in for another company's site, so it has its own small page kit. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function sendSandboxPage(reply: FastifyReply, statusCode: number, title: string, body: string) {
  return reply
    .code(statusCode)
    .header("content-type", "text/html; charset=utf-8")
    .header(
      "content-security-policy", // The form's answer redirects to the service's return URL, so form-action allows http(s).
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
    )
    .header("x-frame-options", "DENY")
    .header("cache-control", "no-store")
    .send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
.error{color:#b00020}label{display:block;margin:.8rem 0 .3rem}
input{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box}button{margin-top:1rem;font-size:1rem;padding:.6rem 1.2rem}</style>
</head><body>${body}</body></html>`);
}
