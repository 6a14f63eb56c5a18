// The signed-in account's own page: its password, two-factor sign-in and sessions, the same for
// merchant users (/dashboard/account) and operators (/operator/account).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Accounts } from "../../accounts/module.ts";
import { PASSWORD_MIN_LENGTH } from "../../accounts/password.ts";
import type { AccountKind, Principal } from "../../accounts/principal.ts";
import type { TwoFactorService } from "../../accounts/two-factor.ts";
import { hexDigest } from "../../platform/crypto/secret-hash.ts";
import { time } from "../kit/format.ts";
import { formBody } from "../kit/forms.ts";
import { html } from "../kit/html.ts";
import { browserOf } from "../kit/labels.ts";
import { type Audience, csrfField, layout, sendHtml, setFlash } from "../kit/layout.ts";
import { requireSignIn } from "../kit/plugin.ts";
import { qrCode } from "../kit/qr.ts";

const field = { type: "string", maxLength: 512 } as const;
const twoFactorBody = formBody({ code: { type: "string", maxLength: 20 } }, ["code"]);
const changePasswordBody = formBody({ current: field, password: field }, ["current", "password"]);
const sessionParams = {
  type: "object",
  properties: { sessionId: { type: "string", maxLength: 64 } },
} as const;

/** A refusal the user can act on (a wrong code or password, too many tries) becomes a flash; anything else is thrown. */
function flashRefusal(request: FastifyRequest, error: unknown): void {
  const code = (error as { code?: string }).code;
  if (code !== "INVALID_REQUEST" && code !== "RATE_LIMIT_EXCEEDED") throw error;
  setFlash(request, { kind: "error", text: (error as Error).message });
}

export const ownAccountPages: FastifyPluginAsync<{
  accounts: Accounts;
  twoFactor: TwoFactorService;
  kind: AccountKind;
}> = async (own, { accounts, twoFactor, kind }) => {
  const audience: Audience = kind === "merchant" ? "dashboard" : "operator";
  const base = `/${audience}`;
  own.addHook("preValidation", requireSignIn(accounts, kind));
  const principalOf = (request: FastifyRequest) => request.principal as Principal;

  const accountPage = async (request: FastifyRequest, reply: FastifyReply, recoveryCodes?: string[]) => {
    const principal = principalOf(request);
    const sessions = await accounts.sessions.list(principal, hexDigest(request.session.sessionId));
    const enrolment = await twoFactor.enrolment(principal, hexDigest(request.session.sessionId));
    return sendHtml(
      reply,
      200,
      layout(request, reply, {
        audience,
        title: "Account",
        body: html`<h1>Your account</h1>
${principal.twoFactorRequired && !principal.twoFactorOn ? html`<p class="card flash error" role="alert" id="two-factor-required">Two-factor sign-in is required here: turn it on below to use the other pages.</p>` : ""}
<section class="card" id="two-factor"><h2>Two-factor sign-in</h2>
${
  recoveryCodes
    ? html`<p><strong>Two-factor sign-in is on.</strong> Keep these recovery codes somewhere safe: each signs you in once if you lose your phone. They are shown only now.</p>
<ul class="recovery-codes mono">${recoveryCodes.map((code) => html`<li>${code}</li>`)}</ul>`
    : enrolment
      ? html`<p>Scan this code with an authenticator app (or enter the key by hand), then enter the 6-digit code it shows.</p>
${qrCode(enrolment.uri, "QR code of the two-factor secret")}
<p><code id="otpauth-uri" class="mono">${enrolment.uri}</code></p>
<form method="post" action="${base}/account/two-factor">${csrfField(reply)}
<label for="code">Code from the app</label><input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required maxlength="6">
<p><button type="submit">Turn on two-factor sign-in</button></p></form>`
      : html`<p id="two-factor-on">Two-factor sign-in is on.</p>
${
  principal.twoFactorRequired
    ? html`<p class="muted">It is required here, so it stays on.</p>`
    : html`<form method="post" action="${base}/account/two-factor/off">${csrfField(reply)}
<label for="off-code">Code from the app, or a recovery code</label><input id="off-code" name="code" autocomplete="one-time-code" required maxlength="20">
<p><button type="submit" class="secondary">Turn off</button></p></form>`
}`
}</section>
<section class="card"><h2>Change password</h2>
<form method="post" action="${base}/account/password">${csrfField(reply)}
<label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="password">New password (at least ${PASSWORD_MIN_LENGTH} characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required>
<p><button type="submit">Change password</button></p></form>
<p class="muted">Changing the password signs out every other session.</p></section>
<h2>Sessions</h2>
<div class="table-wrap"><table><thead><tr><th>Signed in</th><th>From</th><th>Browser</th><th>Expires</th><th><span class="skip">Action</span></th></tr></thead><tbody>
${sessions.map(
  (
    one,
  ) => html`<tr><td>${time(one.createdAt)}${one.current ? html` <span class="badge ok">current session</span>` : ""}</td><td>${one.address}</td><td title="${one.userAgent}">${browserOf(one.userAgent)}</td><td>${time(one.expiresAt)}</td>
<td><form method="post" action="${base}/account/sessions/${one.id}/revoke" class="inline">${csrfField(reply)}<button type="submit" class="secondary">Sign out this session</button></form></td></tr>`,
)}</tbody></table></div>`,
      }),
    );
  };

  own.get(`${base}/account`, async (request, reply) => accountPage(request, reply));

  own.post(`${base}/account/two-factor`, { schema: { body: twoFactorBody } }, async (request, reply) => {
    try {
      const codes = await twoFactor.confirm(
        principalOf(request),
        (request.body as { code: string }).code,
        request.ip,
        hexDigest(request.session.sessionId),
      );
      // Shown once, in this answer; the principal read for the page must see it on.
      request.principal = { ...principalOf(request), twoFactorOn: true };
      return await accountPage(request, reply, codes);
    } catch (error) {
      if ((error as { code?: string }).code !== "INVALID_REQUEST") throw error;
      setFlash(request, { kind: "error", text: (error as Error).message });
      return reply.redirect(`${base}/account`, 303);
    }
  });

  own.post(`${base}/account/two-factor/off`, { schema: { body: twoFactorBody } }, async (request, reply) => {
    try {
      await twoFactor.disable(principalOf(request), (request.body as { code: string }).code, request.ip);
      setFlash(request, { kind: "ok", text: "Two-factor sign-in is off." });
    } catch (error) {
      flashRefusal(request, error);
    }
    return reply.redirect(`${base}/account`, 303);
  });

  own.post(`${base}/account/password`, { schema: { body: changePasswordBody } }, async (request, reply) => {
    const { current, password } = request.body as { current: string; password: string };
    try {
      await accounts.passwords.changePassword(
        principalOf(request),
        current,
        password,
        hexDigest(request.session.sessionId),
        request.ip,
      );
      setFlash(request, { kind: "ok", text: "Password changed. Every other session is signed out." });
    } catch (error) {
      flashRefusal(request, error);
    }
    return reply.redirect(`${base}/account`, 303);
  });

  own.post(
    `${base}/account/sessions/:sessionId/revoke`,
    { schema: { params: sessionParams } },
    async (request, reply) => {
      await accounts.sessions.revoke(
        principalOf(request),
        (request.params as { sessionId: string }).sessionId,
        request.ip,
      );
      return reply.redirect(`${base}/account`, 303);
    },
  );
};
