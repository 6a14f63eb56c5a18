import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, fetch } from "undici";
import { buildRequest } from "../webhooks/request.ts";
import { type ApiClient, CliError, unreachable } from "./api-client.ts";
import { readEventStream } from "./sse.ts";

/** What `listen` keeps per user and keys: the secret it signs with and the last event it forwarded. */
interface ListenState {
  secret: string;
  lastEventId?: string | undefined;
}

/** $HOME/.config/checkout-service/listen-<hash of the public key>.json, readable by its owner only. */
export function listenStatePath(publicKey: string, home = homedir()): string {
  const name = createHash("sha256").update(publicKey).digest("hex").slice(0, 16);
  return join(home, ".config", "checkout-service", `listen-${name}.json`);
}

export function loadListenState(path: string): ListenState {
  try {
    const stored = JSON.parse(readFileSync(path, "utf8")) as ListenState;
    if (typeof stored.secret === "string" && stored.secret.startsWith("whsec_")) return stored;
  } catch {}
  const fresh = { secret: `whsec_${randomBytes(32).toString("base64")}` };
  saveListenState(path, fresh);
  return fresh;
}

function saveListenState(path: string, state: ListenState): void {
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  // Whole or not at all: a crash mid-write must not lose the secret.
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

export interface ListenOptions {
  api: ApiClient;
  publicKey: string;
  forwardTo: string;
  events: string[] | undefined;
  statePath: string;
  signal: AbortSignal;
  json: boolean;
  /** Where each forwarded event is told, one line each. */
  write: (line: string) => void;
}

const FORWARD_TIMEOUT_MS = 10_000;
const RECONNECT_DELAYS_MS = [500, 1000, 2000, 5000];

/**
 * Follows the group's event stream and posts each event to `forwardTo`, signed as production
 * signs a webhook; resumes after the last event forwarded, across runs. Returns when `signal` aborts.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const { api, signal, write } = options;
  const state = loadListenState(options.statePath);
  const agent = new Agent({ connect: { timeout: 5000 } });
  let failures = 0;
  try {
    while (!signal.aborted) {
      let connected = false;
      try {
        const response = await fetch(`${api.baseUrl}/api/v1/events/stream`, {
          headers: { ...api.credentials, ...(state.lastEventId && { "last-event-id": state.lastEventId }) },
          signal,
          dispatcher: agent,
        }).catch((error: unknown) => {
          if (signal.aborted) throw error;
          throw unreachable(api.baseUrl, error);
        });
        if (response.status === 400 && state.lastEventId) {
          // The event it stopped after is gone (another database?): start from now.
          write(`the last event forwarded (${state.lastEventId}) is unknown here; following from now`);
          state.lastEventId = undefined;
          await response.body?.cancel();
          continue;
        }
        if (!response.ok || !response.body) {
          const text = await response.text();
          throw new CliError(`the event stream answered ${response.status}: ${text.slice(0, 200)}`);
        }
        connected = true;
        failures = 0;
        write(`Ready. Forwarding events to ${options.forwardTo} (Ctrl-C to stop)`);
        for await (const message of readEventStream(response.body as ReadableStream<Uint8Array>)) {
          if (!message.id) continue;
          if (!options.events || options.events.includes(message.event)) {
            write(await forward(options, state.secret, message.id, message.event, message.data, agent));
          }
          state.lastEventId = message.id;
          saveListenState(options.statePath, state);
        }
      } catch (error) {
        if (signal.aborted) return;
        // Keys refused, or a stream that is not one: no retry mends that.
        if (error instanceof CliError && /answered 4\d\d/.test(error.message)) throw error;
        const delay = RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)] ?? 5000;
        failures += 1;
        write(
          `${connected ? "stream lost" : "cannot follow the stream"}: ${(error as Error).message}; retrying in ${delay / 1000}s`,
        );
        await sleep(delay, undefined, { signal }).catch(() => {});
      }
    }
  } finally {
    await agent.destroy();
  }
}

async function forward(
  options: ListenOptions,
  secret: string,
  eventId: string,
  event: string,
  data: string,
  agent: Agent,
): Promise<string> {
  const payload = JSON.parse(data) as Record<string, unknown>;
  const transactionId = String(payload.transactionId ?? "");
  const { headers, body } = buildRequest({
    event_id: eventId,
    event,
    payment_id: transactionId,
    payload,
    sent_timestamp: String(payload.timestamp ?? new Date().toISOString()),
    webhook_secret: secret,
    previous_webhook_secrets: [],
  });
  const started = Date.now();
  let outcome: { status?: number; error?: string };
  try {
    const response = await fetch(options.forwardTo, {
      method: "POST",
      headers,
      body,
      dispatcher: agent,
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    await response.body?.cancel();
    outcome = { status: response.status };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    outcome = { error: cause?.code ?? (error as Error).message };
  }
  const ms = Date.now() - started;
  if (options.json) return JSON.stringify({ eventId, event, transactionId, ...outcome, ms });
  const answer = outcome.status === undefined ? `error ${outcome.error}` : `[${outcome.status}]`;
  return `${new Date().toISOString()}  ${event.padEnd(17)}  ${transactionId}  -> ${answer} (${ms} ms)  ${eventId}`;
}
