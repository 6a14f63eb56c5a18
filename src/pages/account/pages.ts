// Signing in and out, accepting an invite, resetting a forgotten password, and the account's own
// page (own-account.ts): the same pages for merchant users (/dashboard) and operators (/operator).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Accounts } from "../../accounts/module.ts";
import { PASSWORD_MIN_LENGTH } from "../../accounts/password.ts";
import { type AccountKind, actorOf, type Principal } from "../../accounts/principal.ts";
import type { TwoFactorService } from "../../accounts/two-factor.ts";
import { hexDigest } from "../../platform/crypto/secret-hash.ts";
import { formBody } from "../kit/forms.ts";
import { html } from "../kit/html.ts";
import { type Audience, csrfField, layout, sendHtml } from "../kit/layout.ts";
import { ownAccountPages } from "./own-account.ts";

const field = { type: "string", maxLength: 512 } as const;
const loginBody = formBody({ email: field, password: field }, ["email", "password"]);
const passwordBody = formBody({ password: field }, ["password"]);
const forgotBody = formBody({ email: field }, ["email"]);
const codeBody = formBody(
  { challenge: { type: "string", maxLength: 64 }, code: { type: "string", maxLength: 20 } },
  ["challenge", "code"],
);
const tokenParams = {
  type: "object",
  properties: { token: { type: "string", maxLength: 64 } },
} as const;

/** Starts a fresh session (a new id, so a planted cookie is worth nothing) for the account. */
async function signInto(request: FastifyRequest, principal: Principal): Promise<void> {
  await request.session.regenerate();
  request.session.accountId = principal.accountId;
  request.session.signingIn = { actor: actorOf(principal), groupId: principal.groupId };
  request.session.address = request.ip;
  request.session.userAgent = String(request.headers["user-agent"] ?? "").slice(0, 300);
}

export const accountPages: FastifyPluginAsync<{
  accounts: Accounts;
  twoFactor: TwoFactorService;
  kind: AccountKind;
}> = async (app, { accounts, twoFactor, kind }) => {
  const audience: Audience = kind === "merchant" ? "dashboard" : "operator";
  const base = `/${audience}`;
  const audienceName = kind === "merchant" ? "the merchant dashboard" : "the operator console";

  const loginPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    error?: string,
    email = "",
  ) =>
    sendHtml(
      reply,
      status,
      layout(request, reply, {
        audience,
        title: "Sign in",
        narrow: true,
        error,
        body: html`<h1>Sign in to ${audienceName}</h1>
<form method="post" action="${base}/login" class="card">${csrfField(reply)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p></form>
${accounts.passwords.mailsLinks ? html`<p><a href="${base}/forgot">Forgot password?</a></p>` : ""}`,
      }),
    );

  /** 429 with Retry-After, and the login page saying how long to wait. */
  const throttledLogin = (
    request: FastifyRequest,
    reply: FastifyReply,
    until: Date,
    why: string,
    email = "",
  ) => {
    const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
    reply.header("retry-after", String(seconds));
    return loginPage(request, reply, 429, `${why} Try again in ${Math.ceil(seconds / 60)} minutes.`, email);
  };

  app.get(`${base}/login`, async (request, reply) => {
    if (
      request.session.accountId &&
      (await accounts.signIn.principal(request.session.accountId))?.kind === kind
    ) {
      return reply.redirect(base, 303);
    }
    return loginPage(request, reply, 200);
  });

  app.post(`${base}/login`, { schema: { body: loginBody } }, async (request, reply) => {
    const { email, password } = request.body as { email: string; password: string };
    const result = await accounts.signIn.checkPassword(kind, email, password, request.ip);
    if (result.outcome === "password_right") return signInOrAskForCode(request, reply, result.principal);
    if (result.outcome === "throttled") {
      return throttledLogin(
        request,
        reply,
        result.until,
        "Too many failed sign-ins for this account.",
        email,
      );
    }
    return loginPage(request, reply, 401, "That email and password do not match an account.", email);
  });

  /** The second form: a code from the authenticator app or a recovery code, then a session. */
  const codePage = (
    request: FastifyRequest,
    reply: FastifyReply,
    challenge: string,
    status: number,
    error?: string,
  ) =>
    sendHtml(
      reply,
      status,
      layout(request, reply, {
        audience,
        title: "Two-factor sign-in",
        narrow: true,
        error,
        body: html`<h1>Two-factor sign-in</h1>
<p>Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.</p>
<form method="post" action="${base}/login/code" class="card">${csrfField(reply)}
<input type="hidden" name="challenge" value="${challenge}">
<label for="code">Code</label><input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required maxlength="20" autofocus>
<p><button type="submit">Sign in</button></p></form>`,
      }),
    );

  /** After the right password (or a reset): a session now, or first the second factor. */
  const signInOrAskForCode = async (request: FastifyRequest, reply: FastifyReply, principal: Principal) => {
    if (principal.twoFactorOn)
      return codePage(request, reply, await twoFactor.startChallenge(principal), 200);
    await signInto(request, principal);
    return reply.redirect(base, 303);
  };

  app.post(`${base}/login/code`, { schema: { body: codeBody } }, async (request, reply) => {
    const { challenge, code } = request.body as { challenge: string; code: string };
    const principal = await twoFactor.challenged(challenge, (id) => accounts.signIn.principal(id));
    if (principal?.kind !== kind) {
      return loginPage(request, reply, 401, "That sign-in has run out. Sign in again.");
    }
    const check = await twoFactor.completeChallenge(challenge, principal, code, request.ip);
    if (check.outcome === "accepted") {
      await signInto(request, principal);
      return reply.redirect(base, 303);
    }
    if (check.outcome === "throttled") {
      return throttledLogin(request, reply, check.until, "Too many wrong codes.");
    }
    return codePage(request, reply, challenge, 401, "That code is not right.");
  });

  app.post(`${base}/logout`, async (request, reply) => {
    const principal = request.session.accountId
      ? await accounts.signIn.principal(request.session.accountId)
      : undefined;
    if (principal)
      await accounts.sessions.signOut(principal, hexDigest(request.session.sessionId), request.ip);
    await request.session.destroy();
    return reply.redirect(`${base}/login`, 303);
  });

  /** The page of an invite or reset link: a `password` form while the link is open, else a 404. */
  const choosePasswordPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    link: "invite" | "reset",
    token: string,
    status: number,
    error?: string,
  ) => {
    // The token is in the URL: never let it leak to another site through the Referer.
    reply.header("referrer-policy", "no-referrer");
    const account =
      link === "invite"
        ? await accounts.invites.invitedAccount(kind, token)
        : await accounts.passwords.resetAccount(kind, token);
    if (!account) {
      return sendHtml(
        reply,
        404,
        layout(request, reply, {
          audience,
          title: "Link not valid",
          narrow: true,
          body: html`<h1>This link is not valid</h1><p>It may have been used already, replaced by a newer one, or be too old (${link === "invite" ? "72 hours" : "one hour"}). Ask for a new one.</p>`,
        }),
      );
    }
    const intro =
      link === "invite"
        ? html`<h1>Welcome to ${audienceName}</h1>
<p>You were invited as <strong>${account.email}</strong>${account.role ? html` (${account.role})` : ""}. Choose a password to sign in.</p>`
        : html`<h1>Choose a new password</h1>
<p>For <strong>${account.email}</strong>. Every session of this account is signed out when you save it.</p>`;
    return sendHtml(
      reply,
      status,
      layout(request, reply, {
        audience,
        title: link === "invite" ? "Choose a password" : "Reset password",
        narrow: true,
        error,
        body: html`${intro}
<form method="post" action="${base}/${link}/${token}" class="card">${csrfField(reply)}
<input type="email" name="username" value="${account.email}" autocomplete="username" hidden>
<label for="password">Password (at least ${PASSWORD_MIN_LENGTH} characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required>
<p><button type="submit">Set password and sign in</button></p></form>`,
      }),
    );
  };

  for (const link of ["invite", "reset"] as const) {
    app.get(`${base}/${link}/:token`, { schema: { params: tokenParams } }, async (request, reply) =>
      choosePasswordPage(request, reply, link, (request.params as { token: string }).token, 200),
    );
    app.post(
      `${base}/${link}/:token`,
      { schema: { params: tokenParams, body: passwordBody } },
      async (request, reply) => {
        const { token } = request.params as { token: string };
        const { password } = request.body as { password: string };
        reply.header("referrer-policy", "no-referrer");
        try {
          const principal =
            link === "invite"
              ? await accounts.invites.acceptInvite(kind, token, password, request.ip)
              : await accounts.passwords.completeReset(kind, token, password, request.ip);
          // A reset replaces the password, not the second factor.
          return await signInOrAskForCode(request, reply, principal);
        } catch (error) {
          if ((error as { code?: string }).code === "INVALID_REQUEST") {
            return choosePasswordPage(request, reply, link, token, 400, (error as Error).message);
          }
          throw error;
        }
      },
    );
  }

  // "Forgot password": only where a link can reach the address's owner, by e-mail (SMTP_URL).
  const forgotPage = (request: FastifyRequest, reply: FastifyReply, sent: boolean) =>
    sendHtml(
      reply,
      200,
      layout(request, reply, {
        audience,
        title: "Forgot password",
        narrow: true,
        body: sent
          ? html`<h1>Check your e-mail</h1><p id="forgot-sent">If an account of ${audienceName} has that address, we e-mailed it a link to choose a new password. The link works once, for one hour.</p><p><a href="${base}/login">Back to sign in</a></p>`
          : html`<h1>Forgot your password?</h1>
<form method="post" action="${base}/forgot" class="card">${csrfField(reply)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<p><button type="submit">E-mail me a link</button></p></form>`,
      }),
    );
  app.get(`${base}/forgot`, async (request, reply) => {
    if (!accounts.passwords.mailsLinks) return reply.callNotFound();
    return forgotPage(request, reply, false);
  });
  app.post(`${base}/forgot`, { schema: { body: forgotBody } }, async (request, reply) => {
    if (!accounts.passwords.mailsLinks) return reply.callNotFound();
    await accounts.passwords.requestResetByEmail(kind, (request.body as { email: string }).email, request.ip);
    return forgotPage(request, reply, true);
  });

  await app.register(ownAccountPages, { accounts, twoFactor, kind });
};
