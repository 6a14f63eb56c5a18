// The service's own pages outside the dashboard and console: its home page, and what a browser is
// shown for a path that names nothing. Built with the customer pages' kit, under the service's name.
import type { FastifyReply, FastifyRequest } from "fastify";
import { type CustomerBrand, sendCustomerPage } from "./customer.ts";
import { html } from "./html.ts";

const SERVICE: CustomerBrand = { name: "Checkout", color: null, logoPath: null };

/** `/`: where to go from the service's own address, instead of a JSON 404. */
export const homePage = (reply: FastifyReply) =>
  sendCustomerPage(
    reply,
    200,
    SERVICE,
    "Checkout service",
    html`<div class="card"><h1>Checkout service</h1><ul>
<li><a href="/dashboard">Merchant dashboard</a></li>
<li><a href="/operator">Operator console</a></li>
<li><a href="/docs">API reference</a> (<a href="/openapi.json">OpenAPI</a>)</li>
<li><a href="/health">Health</a></li></ul></div>`,
    { footer: false },
  );

/** A customer's link that cannot be routed at all (an undecodable or over-long token). */
export function customerPathError(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  if (!/^\/(pay|return)\//.test(request.url)) return undefined;
  return sendCustomerPage(
    reply,
    404,
    SERVICE,
    "Not found",
    html`<div class="card"><h1>Payment link not found</h1><p>Check the link you were given.</p></div>`,
  );
}

/** A page of the dashboard or the console that does not exist: a way back, not JSON. */
export function pageNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  if (!/^\/(dashboard|operator)(\/|$)/.test(request.url)) return undefined;
  const home = request.url.startsWith("/operator") ? "/operator" : "/dashboard";
  return sendCustomerPage(
    reply,
    404,
    SERVICE,
    "Not found",
    html`<div class="card"><h1>Page not found</h1><p><a href="${home}">Back</a></p></div>`,
    { footer: false },
  );
}
