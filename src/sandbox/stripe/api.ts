import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { guardAccount } from "../account.ts";
import type { FaultPlayer } from "../faults.ts";
import { SandboxError } from "../simulation.ts";
import { nowSeconds, type SandboxSession, type SandboxState, sandboxId } from "../state.ts";
import type { StripePayments } from "./payments.ts";

type FormBody = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

export function isHttpUrl(value: string | undefined): value is string {
  try {
    return value !== undefined && ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

export function stripeError(reply: FastifyReply, statusCode: number, message: string, code?: string) {
  const type =
    statusCode === 401 ? "authentication_error" : statusCode >= 500 ? "api_error" : "invalid_request_error";
  return reply.code(statusCode).send({ error: { type, message, ...(code && { code }) } });
}

const serverError = (reply: FastifyReply, status: number) =>
  stripeError(reply, status, `Sandbox fault: ${status === 503 ? "outage" : "error_500"}`);

/**
 * The part of Stripe's REST API the service uses (form-encoded, under /v1), so the official SDK
 * runs unchanged against it.
 */
export function registerStripeApi(
  app: FastifyInstance,
  {
    state,
    payments,
    apiKey,
    faults,
  }: {
    state: SandboxState;
    payments: StripePayments;
    apiKey: string;
    faults: FaultPlayer;
  },
): void {
  app.register(async (api) => {
    api.setErrorHandler((error, request, reply) => {
      if (error instanceof SandboxError)
        return stripeError(reply, error.statusCode, error.message, error.code);
      const statusCode = (error as { statusCode?: number }).statusCode ?? 500;
      if (statusCode >= 500) request.log.error({ err: error }, "sandbox error");
      return stripeError(reply, statusCode, (error as Error).message);
    });
    guardAccount(api, {
      processor: "stripe",
      state,
      key: apiKey,
      refuse: (reply) => stripeError(reply, 401, "Invalid API Key provided"),
      outage: (reply) => serverError(reply, 503),
      idempotencyKeyOf: (request) => request.headers["idempotency-key"],
    });
    /** Replays the first answer to an Idempotency-Key, as Stripe does for 24 hours. */
    const idempotent = async <T>(request: FastifyRequest, create: () => T): Promise<T> => {
      const key = request.headers["idempotency-key"];
      if (typeof key !== "string") return create();
      const scoped = `${request.url} ${key}`;
      if (!state.idempotentResponses.has(scoped)) state.put("idempotency", scoped, create());
      return state.idempotentResponses.get(scoped) as T;
    };

    api.post<{ Body: FormBody }>("/v1/checkout/sessions", async (request, reply) => {
      const fault = state.takeCheckoutFault("stripe");
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
      const create = () =>
        idempotent(request, () => {
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
            line_item_name: str((priceData?.product_data as FormBody | undefined)?.name) ?? "Payment",
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
      return faults.play(fault, request, reply, create, serverError);
    });

    // Stripe's list shape: newest first, by status and creation time, a page at a time.
    api.get<{ Querystring: Record<string, unknown> }>("/v1/checkout/sessions", async (request) => {
      const query = request.query;
      const created = (query.created ?? {}) as Record<string, unknown>;
      const bound = (key: string) => (str(created[key]) === undefined ? undefined : Number(created[key]));
      const [gte, lt] = [bound("gte"), bound("lt")];
      const all = [...state.sessions.keys()]
        .map((id) => state.session(id))
        .filter(
          (session): session is SandboxSession =>
            !!session &&
            (!query.status || session.status === query.status) &&
            (gte === undefined || session.created >= gte) &&
            (lt === undefined || session.created < lt),
        )
        .reverse();
      const after = str(query.starting_after);
      const from = after ? all.findIndex((session) => session.id === after) + 1 : 0;
      // Without a limit, everything: the chaos runs and tests read the whole list at once.
      const limit =
        query.limit === undefined ? all.length : Math.min(100, Math.max(1, Number(str(query.limit))));
      const data = all.slice(from, from + limit);
      return { object: "list", url: "/v1/checkout/sessions", has_more: from + limit < all.length, data };
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
      const fault = state.takeRefundFault("stripe");
      const body = request.body ?? {};
      const paymentIntent = str(body.payment_intent);
      if (fault !== "error_500" && !paymentIntent) {
        throw new SandboxError(400, "payment_intent is required", "parameter_missing");
      }
      const amount = str(body.amount);
      const carryOut = () =>
        idempotent(request, () =>
          payments.carryOutRefund(paymentIntent as string, {
            amount: amount === undefined ? undefined : Number(amount),
            reason: str(body.reason),
            metadata: (body.metadata as Record<string, string> | undefined) ?? {},
          }),
        );
      return faults.play(fault, request, reply, carryOut, serverError);
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
    api.get<{ Params: { id: string } }>("/v1/disputes/:id", async (request) =>
      payments.disputeView(request.params.id),
    );
    api.post<{ Params: { id: string }; Body: FormBody }>("/v1/disputes/:id", async (request, reply) => {
      const body = request.body ?? {};
      const given = (body.evidence ?? {}) as FormBody;
      const evidence: Record<string, string> = {};
      for (const [field, text] of Object.entries(given)) {
        if (typeof text === "string") evidence[field] = text;
      }
      const submit = str(body.submit) === "true";
      const carryOut = () =>
        idempotent(request, () => payments.updateDispute(request.params.id, evidence, submit));
      return faults.play(
        submit ? state.takeDisputeFault("stripe") : null,
        request,
        reply,
        carryOut,
        serverError,
      );
    });
    api.post<{ Params: { id: string } }>("/v1/disputes/:id/close", async (request, reply) =>
      faults.play(
        state.takeDisputeFault("stripe"),
        request,
        reply,
        () => idempotent(request, () => payments.concedeDispute(request.params.id)),
        serverError,
      ),
    );
    api.get<{ Params: { id: string } }>("/v1/refunds/:id", async (request) => {
      const refund = state.refunds.get(request.params.id);
      if (!refund) throw new SandboxError(404, `No such refund: '${request.params.id}'`);
      return refund;
    });
  });
}
