import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type Checkout, CheckoutError, type WebhookPayload } from "@checkout-service/client";
import { Agent, fetch, type Response } from "undici";
import { buildRequest } from "../webhooks/request.ts";
import { explained } from "./context.ts";

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
  checkout: Checkout;
  /** The service's address, named in the lines that say why the stream is not followed. */
  url: string;
  forwardTo: string;
  events: string[] | undefined;
  statePath: string;
  signal: AbortSignal;
  json: boolean;
  /** Where each forwarded event is told, one line each. */
  write: (line: string) => void;
}

const FORWARD_TIMEOUT_MS = 10_000;
/** How much of a refusing receiver's answer a line shows: enough for an error message. */
const ANSWER_SHOWN_CHARS = 200;

/** The start of a receiver's answer, on one line; the rest is not read. */
async function answerStart(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < ANSWER_SHOWN_CHARS) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > ANSWER_SHOWN_CHARS ? `${line.slice(0, ANSWER_SHOWN_CHARS)}…` : line;
}

/** Said once a run, at the first refusal: the usual cause is a receiver checking the group's secret. */
const SECRET_HINT =
  "  hint: listen signs with its own secret, not the group's webhook secret; give your receiver the one " +
  "`checkout listen --print-secret` prints while testing with listen";

/**
 * Follows the group's event stream (the client reconnects by itself) and posts each event to
 * `forwardTo`, signed as production signs a webhook; resumes after the last event forwarded,
 * across runs. Returns when `signal` aborts.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const { signal, write } = options;
  const state = loadListenState(options.statePath);
  let hinted = false;
  const agent = new Agent({ connect: { timeout: 5000 } });
  try {
    while (!signal.aborted) {
      const events = options.checkout.events.stream({
        ...(state.lastEventId && { lastEventId: state.lastEventId }),
        signal,
        onOpen: () => write(`Ready. Forwarding events to ${options.forwardTo} (Ctrl-C to stop)`),
        onRetry: ({ error, delayMs, wasOpen }) => {
          const why = wasOpen
            ? `stream lost: ${error.message}`
            : `cannot follow the stream: ${explained(error, options.url).message}`;
          write(`${why}; retrying in ${delayMs / 1000}s`);
        },
      });
      try {
        for await (const { id, event, data } of events) {
          if (!options.events || options.events.includes(event)) {
            const forwarded = await forward(options, state.secret, id, event, data, agent);
            write(forwarded.line);
            if (!hinted && !options.json && forwarded.refused) {
              hinted = true;
              write(SECRET_HINT);
            }
          }
          state.lastEventId = id;
          saveListenState(options.statePath, state);
        }
      } catch (error) {
        if (!(error instanceof CheckoutError)) throw error;
        if (error.status === 400 && state.lastEventId) {
          // The event it stopped after is gone (another database?): start from now.
          write(`the last event forwarded (${state.lastEventId}) is unknown here; following from now`);
          state.lastEventId = undefined;
          continue;
        }
        // Keys refused, or something that is not the service: no retry mends that.
        throw explained(error, options.url);
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
  payload: WebhookPayload,
  agent: Agent,
): Promise<{ line: string; refused: boolean }> {
  const { transactionId } = payload;
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
  let outcome: { status?: number; answer?: string; error?: string };
  try {
    const response = await fetch(options.forwardTo, {
      method: "POST",
      headers,
      body,
      dispatcher: agent,
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    if (response.ok) {
      await response.body?.cancel();
      outcome = { status: response.status };
    } else {
      outcome = { status: response.status, answer: await answerStart(response) };
    }
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    outcome = { error: cause?.code ?? (error as Error).message };
  }
  const ms = Date.now() - started;
  const refused = outcome.status === 400 || outcome.status === 401 || outcome.status === 403;
  if (options.json)
    return { line: JSON.stringify({ eventId, event, transactionId, ...outcome, ms }), refused };
  const said = outcome.answer ? ` ${JSON.stringify(outcome.answer)}` : "";
  const answer = outcome.status === undefined ? `error ${outcome.error}` : `[${outcome.status}]${said}`;
  return {
    line: `${new Date().toISOString()}  ${event.padEnd(17)}  ${transactionId}  -> ${answer} (${ms} ms)  ${eventId}`,
    refused,
  };
}
