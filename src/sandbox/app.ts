import { timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import qs from "qs";
import { EventSender } from "./events.ts";
import { escapeHtml, sendSandboxPage as sendPage } from "./page.ts";
import { SandboxError, SandboxPayments, TEST_CARDS } from "./payments.ts";
import {
  nowSeconds,
  type RefundFault,
  type SandboxSession,
  SandboxState,
  type SandboxStore,
  sandboxId,
} from "./state.ts";

export interface SandboxOptions {
  /** Where signed events go: the service's /processor/webhooks/stripe. */
  eventsUrl: () => string | undefined;
  webhookSecret: string;
  /** The one secret key the API accepts, as Stripe accepts only an account's own keys. */
  apiKey: string;
  logLevel?: string;
  eventRetryDelaysMs?: number[];
  /** Where objects are kept across restarts; without one the sandbox forgets everything when stopped. */
  store?: SandboxStore;
  /** How long a `delay` fault holds the answer (Stripe-like slowness): 60 s unless a test says. */
  faultDelayMs?: number;
}

const FAULT_MODES = ["drop_response", "error_500", "delay"] as const;

export interface Sandbox {
  app: FastifyInstance;
  state: SandboxState;
  payments: SandboxPayments;
  events: EventSender;
}

type FormBody = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function isHttpUrl(value: string | undefined): value is string {
  try {
    return value !== undefined && ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function stripeError(reply: FastifyReply, statusCode: number, message: string, code?: string) {
  const type = statusCode === 401 ? "authentication_error" : "invalid_request_error";
  return reply.code(statusCode).send({ error: { type, message, ...(code && { code }) } });
}

function checkoutPage(session: SandboxSession, error?: string): string {
  const amount = (session.amount_total / 100).toFixed(2);
  return `<h1>Sandbox checkout</h1>
<p>Pay <strong>${escapeHtml(amount)} ${escapeHtml(session.currency.toUpperCase())}</strong>${
    session.customer_email ? ` as ${escapeHtml(session.customer_email)}` : ""
  }.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/checkout/${escapeHtml(session.id)}">
<label for="card">Card number</label>
<input id="card" name="card" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
<button type="submit">Pay</button>
</form>
<p><small>Test cards: 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined; 4000 0000 0000 5126 pays, and its refunds fail.</small></p>
<p><a id="back" href="${escapeHtml(session.cancel_url)}">Back</a></p>`;
}

/** A processor speaking the part of Stripe's API the service uses, so the real SDK runs unchanged. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const app = Fastify({
    logger: {
      level: options.logLevel ?? "info",
      name: "sandbox",
      // Readable lines on a terminal, like the service's; JSON lines everywhere else.
      ...(process.stdout.isTTY === true && {
        transport: {
          target: "pino-pretty",
          options: { translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname" },
        },
      }),
    },
    bodyLimit: 256 * 1024,
  });
  const state = new SandboxState(options.store);
  await state.load();
  // Answers a `delay` fault holds back; released at once when the sandbox stops.
  const delayed = new Set<() => void>();
  const holdAnswer = (ms: number) =>
    new Promise<void>((resolve) => {
      const release = () => {
        clearTimeout(timer);
        delayed.delete(release);
        resolve();
      };
      const timer = setTimeout(release, ms);
      delayed.add(release);
    });
  const events = new EventSender({
    targetUrl: options.eventsUrl,
    webhookSecret: options.webhookSecret,
    log: app.log,
    ...(options.eventRetryDelaysMs && { retryDelaysMs: options.eventRetryDelaysMs }),
  });
  const payments = new SandboxPayments(state, events);

  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string" },
    (_request, body, done) => {
      done(null, qs.parse(body as string, { depth: 5, arrayLimit: 100 }));
    },
  );
  app.addHook("preClose", async () => {
    for (const release of [...delayed]) release();
  });
  app.addHook("onClose", async () => events.close());
  // Every change is stored before its request is answered.
  app.addHook("onSend", async () => state.flush());
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof SandboxError) return stripeError(reply, error.statusCode, error.message, error.code);
    const statusCode = (error as { statusCode?: number }).statusCode ?? 500;
    if (statusCode >= 500) request.log.error({ err: error }, "sandbox error");
    if (request.url.startsWith("/v1/")) return stripeError(reply, statusCode, (error as Error).message);
    return reply.code(statusCode).send({ error: { message: (error as Error).message } });
  });

  // --- Stripe REST subset ---------------------------------------------------------------
  app.register(async (api) => {
    api.addHook("onRequest", async (request, reply) => {
      const given = Buffer.from(request.headers.authorization ?? "");
      const expected = Buffer.from(`Bearer ${options.apiKey}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return stripeError(reply, 401, "Invalid API Key provided");
      }
    });
    api.addHook("preHandler", async (request: FastifyRequest) => {
      const key = request.headers["idempotency-key"];
      state.record({
        method: request.method,
        path: request.url,
        at: new Date().toISOString(),
        idempotencyKey: typeof key === "string" ? key : null,
        body: request.body ?? null,
      });
    });
    /** Replays the first answer to an Idempotency-Key, as Stripe does for 24 hours. */
    const idempotent = async (request: FastifyRequest, create: () => unknown) => {
      const key = request.headers["idempotency-key"];
      if (typeof key !== "string") return create();
      const scoped = `${request.url} ${key}`;
      if (!state.idempotentResponses.has(scoped)) state.put("idempotency", scoped, create());
      return state.idempotentResponses.get(scoped);
    };

    api.post<{ Body: FormBody }>("/v1/checkout/sessions", async (request, reply) => {
      const body = request.body ?? {};
      const lineItem = (body.line_items as FormBody[] | undefined)?.[0] as FormBody | undefined;
      const priceData = lineItem?.price_data as FormBody | undefined;
      const amount = Number(str(priceData?.unit_amount));
      const currency = str(priceData?.currency);
      const successUrl = str(body.success_url);
      const cancelUrl = str(body.cancel_url);
      if (str(body.mode) !== "payment")
        return stripeError(reply, 400, "mode must be payment", "parameter_missing");
      if (!Number.isInteger(amount) || amount < 1 || !currency) {
        return stripeError(
          reply,
          400,
          "line_items[0][price_data] needs unit_amount and currency",
          "parameter_invalid_integer",
        );
      }
      // Rendered as a link and followed as a redirect: only http(s), as Stripe requires.
      if (!isHttpUrl(successUrl) || !isHttpUrl(cancelUrl)) {
        return stripeError(reply, 400, "success_url and cancel_url must be http(s) URLs", "url_invalid");
      }
      return idempotent(request, () => {
        const id = sandboxId("cs");
        const expiresAt = Number(str(body.expires_at) ?? nowSeconds() + 86400);
        const session: SandboxSession = {
          id,
          object: "checkout.session",
          mode: "payment",
          livemode: false,
          created: nowSeconds(),
          url: `${request.protocol}://${request.host}/checkout/${id}`,
          status: "open",
          payment_status: "unpaid",
          amount_total: amount,
          currency: currency.toLowerCase(),
          customer_email: str(body.customer_email) ?? null,
          expires_at: expiresAt,
          success_url: successUrl,
          cancel_url: cancelUrl,
          metadata: (body.metadata as Record<string, string> | undefined) ?? {},
          payment_intent: null,
          payment_intent_metadata:
            ((body.payment_intent_data as FormBody | undefined)?.metadata as
              | Record<string, string>
              | undefined) ?? {},
        };
        state.put("session", id, session);
        return session;
      });
    });

    api.get<{ Params: { id: string } }>("/v1/checkout/sessions/:id", async (request) => {
      const session = state.session(request.params.id);
      if (!session) throw new SandboxError(404, `No such checkout.session: '${request.params.id}'`);
      return session;
    });

    api.post<{ Params: { id: string } }>("/v1/checkout/sessions/:id/expire", async (request) =>
      payments.expire(request.params.id),
    );

    api.get<{ Params: { id: string } }>("/v1/payment_intents/:id", async (request) => {
      const intent = state.paymentIntents.get(request.params.id);
      if (!intent) throw new SandboxError(404, `No such payment_intent: '${request.params.id}'`);
      return intent;
    });

    api.post<{ Body: FormBody }>("/v1/refunds", async (request, reply) => {
      const fault = state.takeRefundFault();
      if (fault === "error_500") {
        return reply.code(500).send({ error: { type: "api_error", message: "Sandbox fault: error_500" } });
      }
      const body = request.body ?? {};
      const paymentIntent = str(body.payment_intent);
      if (!paymentIntent) throw new SandboxError(400, "payment_intent is required", "parameter_missing");
      const amount = str(body.amount);
      const refund = await idempotent(request, () =>
        payments.refund(paymentIntent, {
          amount: amount === undefined ? undefined : Number(amount),
          reason: str(body.reason),
          metadata: (body.metadata as Record<string, string> | undefined) ?? {},
        }),
      );
      if (fault === "drop_response") {
        // Carried out, and the answer lost on the way: the connection closes with nothing said.
        await state.flush();
        reply.hijack();
        request.raw.socket.destroy();
        return;
      }
      if (fault === "delay") await holdAnswer(options.faultDelayMs ?? 60_000);
      return refund;
    });
    api.get<{ Querystring: { payment_intent?: string } }>("/v1/refunds", async (request) => {
      const intent = request.query.payment_intent;
      const data = [...state.refunds.values()].filter(
        (refund) => !intent || refund.payment_intent === intent,
      );
      return { object: "list", url: "/v1/refunds", has_more: false, data: data.reverse() };
    });
    api.get<{ Params: { id: string } }>("/v1/charges/:id", async (request) => {
      const charge = state.charges.get(request.params.id);
      if (!charge) throw new SandboxError(404, `No such charge: '${request.params.id}'`);
      return charge;
    });
    api.get<{ Querystring: { payment_intent?: string } }>("/v1/disputes", async (request) => {
      const intent = request.query.payment_intent;
      const data = [...state.disputes.values()].filter(
        (dispute) => !intent || dispute.payment_intent === intent,
      );
      return { object: "list", url: "/v1/disputes", has_more: false, data: data.reverse() };
    });
    api.get<{ Params: { id: string } }>("/v1/refunds/:id", async (request) => {
      const refund = state.refunds.get(request.params.id);
      if (!refund) throw new SandboxError(404, `No such refund: '${request.params.id}'`);
      return refund;
    });
  });

  // --- Hosted test checkout page ----------------------------------------------------------
  app.get<{ Params: { id: string } }>("/checkout/:id", async (request, reply) => {
    const session = state.session(request.params.id);
    if (!session) return sendPage(reply, 404, "Not found", "<h1>This checkout page does not exist</h1>");
    if (session.status !== "open") {
      return sendPage(reply, 410, "Closed", `<h1>This checkout is ${escapeHtml(session.status)}</h1>`);
    }
    return sendPage(reply, 200, "Sandbox checkout", checkoutPage(session));
  });

  app.post<{ Params: { id: string }; Body: FormBody }>("/checkout/:id", async (request, reply) => {
    const session = state.session(request.params.id);
    if (session?.status !== "open") {
      return sendPage(reply, 410, "Closed", "<h1>This checkout is no longer open</h1>");
    }
    const card = (str(request.body?.card) ?? "").replace(/[\s-]/g, "");
    const outcome = TEST_CARDS[card as keyof typeof TEST_CARDS];
    if (!outcome) {
      return sendPage(
        reply,
        400,
        "Sandbox checkout",
        checkoutPage(session, "Use a sandbox test card number."),
      );
    }
    payments.attempt(session.id, outcome, card);
    if (outcome === "failed") {
      return sendPage(reply, 402, "Sandbox checkout", checkoutPage(session, "Your card was declined."));
    }
    return reply.redirect(session.success_url, 303);
  });

  // --- Simulation (JSON, no auth): what a real customer, bank or dispute would cause -------
  app.post<{ Params: { id: string }; Body: { outcome?: string; card?: string; silent?: boolean } }>(
    "/sandbox/sessions/:id/complete",
    {
      schema: {
        body: {
          type: "object",
          required: ["outcome"],
          properties: {
            outcome: { type: "string", enum: ["succeeded", "failed"] },
            card: { type: "string", maxLength: 19 },
            silent: { type: "boolean" },
          },
        },
      },
    },
    async (request) =>
      payments.attempt(
        request.params.id,
        request.body.outcome as "succeeded" | "failed",
        request.body.card,
        request.body.silent === true,
      ),
  );
  app.delete<{ Params: { id: string } }>("/sandbox/sessions/:id", async (request) => {
    payments.forgetSession(request.params.id);
    return { id: request.params.id, deleted: true };
  });
  app.post<{ Params: { id: string }; Body: { amount?: number; silent?: boolean } | undefined }>(
    "/sandbox/payment_intents/:id/refund",
    {
      schema: {
        body: {
          type: ["object", "null"],
          properties: { amount: { type: "integer", minimum: 1 }, silent: { type: "boolean" } },
        },
      },
    },
    async (request) =>
      payments.refund(request.params.id, { amount: request.body?.amount }, request.body?.silent === true),
  );
  app.post<{ Body: { refunds: { mode: RefundFault["mode"]; count: number } } }>(
    "/sandbox/faults",
    {
      schema: {
        body: {
          type: "object",
          required: ["refunds"],
          properties: {
            refunds: {
              type: "object",
              required: ["mode", "count"],
              properties: {
                mode: { type: "string", enum: [...FAULT_MODES] },
                count: { type: "integer", minimum: 1, maximum: 1000 },
              },
            },
          },
        },
      },
    },
    async (request) => {
      const { mode, count } = request.body.refunds;
      state.refundFault = { mode, remaining: count };
      return { refunds: state.refundFault };
    },
  );
  app.delete("/sandbox/faults", async () => {
    state.refundFault = null;
    return { refunds: null };
  });
  // `silent` on any simulation: it happens at the processor, and its event is lost.
  const silentOnly = { type: ["object", "null"], properties: { silent: { type: "boolean" } } };
  app.post<{ Params: { id: string }; Body: { silent?: boolean } | undefined }>(
    "/sandbox/payment_intents/:id/dispute",
    { schema: { body: silentOnly } },
    async (request) => payments.dispute(request.params.id, request.body?.silent === true),
  );
  app.post<{ Params: { id: string }; Body: { outcome: string; silent?: boolean } }>(
    "/sandbox/disputes/:id/close",
    {
      schema: {
        body: {
          type: "object",
          required: ["outcome"],
          properties: { outcome: { type: "string", enum: ["won", "lost"] }, silent: { type: "boolean" } },
        },
      },
    },
    async (request) =>
      payments.closeDispute(
        request.params.id,
        request.body.outcome as "won" | "lost",
        request.body.silent === true,
      ),
  );
  app.get("/sandbox/requests", async () => ({ data: state.requests }));

  return { app, state, payments, events };
}
