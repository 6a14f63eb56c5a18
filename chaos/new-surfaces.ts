// The surfaces of the trust round under fuzzed input and races: the event stream (its cap, its
// slots, Last-Event-ID) and the two-factor step (its budget). Used by chaos/run.ts's fuzz and race
// scenarios against a running instance.
import { connect, type Socket } from "node:net";
import fc from "fast-check";
import * as OTPAuth from "otpauth";
import { PageClient } from "../test/helpers/pages.ts";

export interface Target {
  url: string;
  adminToken: string;
  groupId: string;
  keys: Record<string, string>;
}

/** The target of a group whose keys are `keys`. */
export async function targetOf(
  url: string,
  adminToken: string,
  keys: Record<string, string>,
): Promise<Target> {
  const answer = await fetch(`${url}/api/v1/auth/test`, { headers: keys });
  const { data } = (await answer.json()) as { data: { groupId: string } };
  return { url, adminToken, groupId: data.groupId, keys };
}

/** The stream's cap per group (src/webhooks/routes/stream.ts). */
const STREAM_CAP = 10;
/** Wrong codes (and passwords) an account may spend in 15 minutes. */
const ACCOUNT_BUDGET = 10;
const PASSWORD = "chaos password that is long enough";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const admin = async (target: Target, path: string, body: unknown) => {
  const response = await fetch(`${target.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${target.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { data: Record<string, string> };
};

/** Some event id of the group, for Last-Event-ID: a payment created and cancelled. */
export async function someEventId(target: Target): Promise<string> {
  const created = await fetch(`${target.url}/api/v1/payments/create`, {
    method: "POST",
    headers: { ...target.keys, "content-type": "application/json" },
    body: JSON.stringify({
      amount: 500,
      currency: "usd",
      customerEmail: "stream@example.com",
      successUrl: "https://shop.example.com/ok",
      cancelUrl: "https://shop.example.com/no",
    }),
  });
  const { data } = (await created.json()) as { data: { transactionId: string } };
  await fetch(`${target.url}/api/v1/payments/${data.transactionId}`, {
    method: "DELETE",
    headers: target.keys,
  });
  for (let i = 0; i < 100; i++) {
    const listed = await fetch(`${target.url}/api/v1/payments/${data.transactionId}/events`, {
      headers: target.keys,
    });
    const events = ((await listed.json()) as { data: { eventId: string }[] }).data;
    if (events[0]) return events[0].eventId;
    await sleep(50);
  }
  throw new Error("no event was created for the cancelled payment");
}

/** The stream opened with fuzzed Last-Event-ID and keys: never a 5xx, errors in the envelope. */
export async function fuzzStream(target: Target, runs: number, seed: number) {
  const eventId = await someEventId(target);
  const counts = { serverErrors: 0, envelopeViolations: 0, opened: 0 };
  const lastEventId = fc.oneof(
    fc.constant(eventId),
    fc.uuid(),
    fc.string({ maxLength: 80 }).map((value) => value.replace(/[^\x20-\x7e]/g, "")),
  );
  await fc.assert(
    fc.asyncProperty(lastEventId, fc.boolean(), async (id, authenticated) => {
      const abort = new AbortController();
      const response = await fetch(`${target.url}/api/v1/events/stream`, {
        headers: { ...(authenticated ? target.keys : { "x-public-key": "pk_fuzz" }), "last-event-id": id },
        signal: abort.signal,
      });
      if (response.status === 200) {
        counts.opened += 1;
        abort.abort();
        await response.body?.cancel().catch(() => {});
        return;
      }
      if (response.status >= 500) counts.serverErrors += 1;
      const text = await response.text();
      try {
        const parsed = JSON.parse(text) as { success?: unknown; error?: { code?: unknown } };
        if (parsed.success !== false || typeof parsed.error?.code !== "string")
          counts.envelopeViolations += 1;
      } catch {
        counts.envelopeViolations += 1;
      }
    }),
    { numRuns: runs, seed },
  );
  return counts;
}

/** A merchant user with two-factor sign-in on, signed out: its email and its TOTP. */
async function userWithTwoFactor(target: Target, email: string) {
  const invited = await admin(target, `/admin/v1/groups/${target.groupId}/users`, { email, role: "viewer" });
  const path = new URL(invited.data.inviteUrl as string).pathname;
  const user = new PageClient(target.url);
  await user.get(path);
  await user.post(path, { password: PASSWORD });
  const page = await user.get("/dashboard/account");
  const uri = (/id="otpauth-uri"[^>]*>([^<]+)</.exec(page.text)?.[1] ?? "").replaceAll("&amp;", "&");
  const totp = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
  await user.post("/dashboard/account/two-factor", { code: totp.generate() });
  await user.get("/dashboard/account");
  await user.post("/dashboard/logout");
  return { email, totp };
}

/** The password, then the second form: a client holding its challenge. */
async function passwordStep(target: Target, email: string) {
  const client = new PageClient(target.url);
  await client.get("/dashboard/login");
  const answer = await client.post("/dashboard/login", { email, password: PASSWORD });
  return {
    client,
    status: answer.status,
    challenge: /name="challenge" value="([^"]+)"/.exec(answer.text)?.[1],
  };
}

/** The two-factor form posted with fuzzed challenges and codes: never a 5xx. */
export async function fuzzCodeStep(target: Target, runs: number, seed: number) {
  const { email } = await userWithTwoFactor(target, `fuzz-2fa-${seed}@example.com`);
  const { client, challenge } = await passwordStep(target, email);
  let serverErrors = 0;
  const text = fc.string({ maxLength: 40 }).map((value) => value.replace(/[^\x20-\x7e]/g, ""));
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.constant(challenge ?? ""), text), text, async (fuzzedChallenge, code) => {
      const answer = await client.post("/dashboard/login/code", { challenge: fuzzedChallenge, code });
      if (answer.status >= 500) serverErrors += 1;
    }),
    { numRuns: runs, seed },
  );
  return { serverErrors };
}

/**
 * Streams raced: `requests` resumed at once (the cap must hold), then as many whose clients hang up
 * while the stream opens (every slot must come back). Counts at the service: how many opened.
 */
export async function raceStreams(target: Target, requests: number) {
  const eventId = await someEventId(target);
  const request =
    `GET /api/v1/events/stream HTTP/1.1\r\nHost: chaos\r\nX-Public-Key: ${target.keys["x-public-key"]}\r\n` +
    `X-Secret-Key: ${target.keys["x-secret-key"]}\r\nLast-Event-ID: ${eventId}\r\n\r\n`;
  const { port } = new URL(target.url);
  const connected = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => resolve(socket));
      socket.once("error", reject);
    });
  const statusOf = (socket: Socket) =>
    new Promise<number>((resolve) => {
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk;
        const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
        if (match) resolve(Number(match[1]));
      });
      socket.on("error", () => resolve(0));
    });
  const sockets = await Promise.all(Array.from({ length: requests }, connected));
  const statuses = sockets.map(statusOf);
  for (const socket of sockets) socket.write(request);
  const answered = await Promise.all(statuses);
  for (const socket of sockets) socket.destroy();
  const opened = answered.filter((status) => status === 200).length;

  const hangers = await Promise.all(Array.from({ length: requests }, connected));
  for (const socket of hangers) socket.write(request);
  for (const socket of hangers) socket.destroy();
  // Every slot comes back: a full set opens again within a few seconds.
  let reopened = 0;
  for (let attempt = 0; attempt < 50 && reopened < STREAM_CAP; attempt++) {
    await sleep(100);
    const again = await Promise.all(Array.from({ length: STREAM_CAP }, connected));
    const againStatuses = again.map(statusOf);
    for (const socket of again) socket.write(request);
    reopened = (await Promise.all(againStatuses)).filter((status) => status === 200).length;
    for (const socket of again) socket.destroy();
  }
  return { opened, cap: STREAM_CAP, reopened };
}

/**
 * The two-factor step raced: wrong codes sent at once, in rounds, with the right password again
 * before each round (the attack of the trust issue). Counts how many wrong codes were checked
 * (answered 401 or the 429 that locks) before the account locked.
 */
export async function raceCodes(target: Target, rounds: number, perRound: number) {
  const { email, totp } = await userWithTwoFactor(target, `race-2fa-${Date.now()}@example.com`);
  let checked = 0;
  let locked = false;
  for (let round = 0; round < rounds && !locked; round++) {
    const step = await passwordStep(target, email);
    if (step.status === 429 || !step.challenge) {
      locked = true;
      break;
    }
    const answers = await Promise.all(
      Array.from({ length: perRound }, (_, i) =>
        step.client.post("/dashboard/login/code", {
          challenge: step.challenge as string,
          code: String(100000 + ((round * perRound + i) % 900000)),
        }),
      ),
    );
    checked += answers.filter((answer) => answer.status === 401).length;
    if (answers.some((answer) => answer.status === 429)) locked = true;
  }
  // Locked means locked: the right password and the right code get no session either.
  const owner = await passwordStep(target, email);
  const signedIn =
    owner.status === 200 &&
    owner.challenge !== undefined &&
    (
      await owner.client.post("/dashboard/login/code", {
        challenge: owner.challenge,
        code: totp.generate({ timestamp: Date.now() + 30_000 }),
      })
    ).status === 303;
  return { checked, budget: ACCOUNT_BUDGET, locked: locked && !signedIn };
}
