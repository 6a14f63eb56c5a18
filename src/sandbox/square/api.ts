import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { guardAccount } from "../account.ts";
import type { FaultPlayer } from "../faults.ts";
import { SandboxError } from "../simulation.ts";
import { type SandboxState, type SquareOrder, type SquarePaymentLink, squareId } from "../state.ts";
import { isHttpUrl } from "../stripe/api.ts";
import type { SquarePayments } from "./payments.ts";

/** The sandbox's one Square location: a US account's, so it takes USD only. */
export const SANDBOX_SQUARE_CURRENCY = "USD";

type Json = Record<string, unknown>;
const objectAt = (value: unknown, key: string): Json | undefined => {
  const inner = (value as Json | undefined)?.[key];
  return inner && typeof inner === "object" && !Array.isArray(inner) ? (inner as Json) : undefined;
};
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

const CATEGORY: Record<number, string> = {
  401: "AUTHENTICATION_ERROR",
  429: "RATE_LIMIT_ERROR",
};

/** Square's error envelope: `{errors: [{category, code, detail}]}`. */
export function squareError(reply: FastifyReply, statusCode: number, detail: string, code?: string) {
  const category = CATEGORY[statusCode] ?? (statusCode >= 500 ? "API_ERROR" : "INVALID_REQUEST_ERROR");
  const errorCode =
    code ??
    (statusCode === 401
      ? "UNAUTHORIZED"
      : statusCode === 404
        ? "NOT_FOUND"
        : statusCode >= 500
          ? "INTERNAL_SERVER_ERROR"
          : "BAD_REQUEST");
  return reply.code(statusCode).send({ errors: [{ category, code: errorCode, detail }] });
}

const serverError = (reply: FastifyReply, status: number) =>
  squareError(
    reply,
    status,
    `Sandbox fault: ${status === 503 ? "outage" : "error_500"}`,
    status === 503 ? "SERVICE_UNAVAILABLE" : "INTERNAL_SERVER_ERROR",
  );

const now = (): string => new Date().toISOString();

/**
 * The part of Square's REST API the service uses (JSON, under /v2), so the official SDK runs
 * unchanged against it.
 */
export function registerSquareApi(
  app: FastifyInstance,
  {
    state,
    payments,
    accessToken,
    locationId,
    faults,
  }: {
    state: SandboxState;
    payments: SquarePayments;
    accessToken: string;
    locationId: string;
    faults: FaultPlayer;
  },
): void {
  app.register(async (api) => {
    api.setErrorHandler((error, request, reply) => {
      if (error instanceof SandboxError) {
        return squareError(
          reply,
          error.statusCode,
          error.message,
          error.code === "resource_missing" ? "NOT_FOUND" : undefined,
        );
      }
      const statusCode = (error as { statusCode?: number }).statusCode ?? 500;
      if (statusCode >= 500) request.log.error({ err: error }, "sandbox error");
      return squareError(reply, statusCode, (error as Error).message);
    });
    guardAccount(api, {
      processor: "square",
      state,
      key: accessToken,
      refuse: (reply) => squareError(reply, 401, "This request could not be authorized."),
      outage: (reply) => serverError(reply, 503),
      idempotencyKeyOf: (request) => (request.body as Json | undefined)?.idempotency_key,
    });
    /** Square answers a repeated idempotency key with the first request's result. */
    const idempotent = async <T>(request: FastifyRequest, create: () => T): Promise<T> => {
      const key = str((request.body as Json | undefined)?.idempotency_key);
      if (!key) throw new SandboxError(400, "idempotency_key is required", "MISSING_REQUIRED_PARAMETER");
      const scoped = `${request.url} ${key}`;
      if (!state.idempotentResponses.has(scoped)) state.put("idempotency", scoped, create());
      return state.idempotentResponses.get(scoped) as T;
    };

    api.get<{ Params: { id: string } }>("/v2/locations/:id", async (request) => {
      if (request.params.id !== locationId) {
        throw new SandboxError(404, `Location ${request.params.id} not found`, "NOT_FOUND");
      }
      return {
        location: {
          id: locationId,
          name: "Sandbox location",
          status: "ACTIVE",
          country: "US",
          currency: SANDBOX_SQUARE_CURRENCY,
          capabilities: ["CREDIT_CARD_PROCESSING"],
        },
      };
    });

    api.post<{ Body: Json | undefined }>("/v2/online-checkout/payment-links", async (request, reply) => {
      const fault = state.takeCheckoutFault("square");
      const body = request.body ?? {};
      const order = objectAt(body, "order");
      const lines = order?.line_items;
      const line = Array.isArray(lines) && lines.length === 1 ? (lines[0] as Json) : undefined;
      const price = objectAt(line, "base_price_money");
      const amount = price?.amount;
      const redirectUrl = str(objectAt(body, "checkout_options")?.redirect_url);
      if (!order || str(order.location_id) !== locationId) {
        return squareError(reply, 400, "order.location_id must be this account's location", "INVALID_VALUE");
      }
      if (!line || typeof amount !== "number" || !Number.isInteger(amount) || amount < 1) {
        return squareError(
          reply,
          400,
          "order needs one line item with a positive base_price_money",
          "INVALID_VALUE",
        );
      }
      if (price?.currency !== SANDBOX_SQUARE_CURRENCY) {
        return squareError(
          reply,
          400,
          `This location takes ${SANDBOX_SQUARE_CURRENCY} only`,
          "INVALID_CURRENCY",
        );
      }
      if (!isHttpUrl(redirectUrl)) {
        return squareError(reply, 400, "checkout_options.redirect_url must be an http(s) URL", "INVALID_URL");
      }
      const create = () =>
        idempotent(request, () => {
          const money = { amount, currency: SANDBOX_SQUARE_CURRENCY };
          const newOrder: SquareOrder = {
            id: squareId(),
            location_id: locationId,
            ...(str(order.reference_id) && { reference_id: str(order.reference_id) as string }),
            line_items: [
              {
                uid: squareId(),
                name: str(line.name) ?? "Payment",
                quantity: str(line.quantity) ?? "1",
                base_price_money: money,
              },
            ],
            total_money: money,
            state: "OPEN",
            version: 1,
            created_at: now(),
            updated_at: now(),
          };
          const id = squareId();
          const url = `${request.protocol}://${request.host}/checkout/${id}`;
          const buyerEmail = str(objectAt(body, "pre_populated_data")?.buyer_email);
          const link: SquarePaymentLink = {
            id,
            version: 1,
            order_id: newOrder.id,
            url,
            long_url: url,
            created_at: now(),
            checkout_options: { redirect_url: redirectUrl },
            pre_populated_data: buyerEmail ? { buyer_email: buyerEmail } : {},
          };
          state.put("square_order", newOrder.id, newOrder);
          state.put("square_link", id, link);
          return { payment_link: link, related_resources: { orders: [newOrder] } };
        });
      return faults.play(fault, request, reply, create, serverError);
    });

    // What exists: a deleted link is gone (its order cancelled), as at Square.
    api.get("/v2/online-checkout/payment-links", async () => ({
      payment_links: [...state.squareLinks.values()].reverse(),
    }));

    api.get<{ Params: { id: string } }>("/v2/online-checkout/payment-links/:id", async (request) => {
      const link = state.squareLinks.get(request.params.id);
      if (!link) throw new SandboxError(404, `Payment link ${request.params.id} not found`, "NOT_FOUND");
      return { payment_link: link };
    });

    api.delete<{ Params: { id: string } }>("/v2/online-checkout/payment-links/:id", async (request) =>
      payments.expire(request.params.id),
    );

    // Orders of the location created in a window, oldest first, a page at a time.
    api.post<{ Body: Json | undefined }>("/v2/orders/search", async (request) => {
      const body = request.body ?? {};
      const created = objectAt(
        objectAt(objectAt(objectAt(body, "query"), "filter"), "date_time_filter"),
        "created_at",
      );
      const [start, end] = [str(created?.start_at), str(created?.end_at)];
      const locations = Array.isArray(body.location_ids) ? body.location_ids : [];
      const all = [...state.squareOrders.values()].filter(
        (order) =>
          locations.includes(order.location_id) &&
          (!start || order.created_at >= start) &&
          (!end || order.created_at < end),
      );
      const from = Number(str(body.cursor) ?? 0);
      const limit = Math.min(1000, Math.max(1, typeof body.limit === "number" ? body.limit : 500));
      const orders = all.slice(from, from + limit);
      return { orders, ...(from + limit < all.length && { cursor: String(from + limit) }) };
    });

    api.get<{ Params: { id: string } }>("/v2/orders/:id", async (request) => {
      const order = state.squareOrders.get(request.params.id);
      if (!order) throw new SandboxError(404, `Order ${request.params.id} not found`, "NOT_FOUND");
      return { order };
    });

    api.get<{ Params: { id: string } }>("/v2/payments/:id", async (request) => {
      const payment = state.squarePayments.get(request.params.id);
      if (!payment) throw new SandboxError(404, `Payment ${request.params.id} not found`, "NOT_FOUND");
      return { payment };
    });

    api.post<{ Body: Json | undefined }>("/v2/refunds", async (request, reply) => {
      const fault = state.takeRefundFault("square");
      const body = request.body ?? {};
      const paymentId = str(body.payment_id);
      const amount = objectAt(body, "amount_money")?.amount;
      if (fault !== "error_500") {
        if (!paymentId) throw new SandboxError(400, "payment_id is required", "MISSING_REQUIRED_PARAMETER");
        if (typeof amount !== "number")
          throw new SandboxError(400, "amount_money is required", "MISSING_REQUIRED_PARAMETER");
      }
      const carryOut = () =>
        idempotent(request, () => ({
          refund: payments.refund(paymentId as string, amount as number, false, str(body.reason)),
        }));
      return faults.play(fault, request, reply, carryOut, serverError);
    });

    api.get<{ Params: { id: string } }>("/v2/refunds/:id", async (request) => {
      const refund = state.squareRefunds.get(request.params.id);
      if (!refund) throw new SandboxError(404, `Refund ${request.params.id} not found`, "NOT_FOUND");
      return { refund };
    });

    api.get<{ Params: { id: string } }>("/v2/disputes/:id", async (request) => ({
      dispute: payments.disputeView(request.params.id),
    }));
    api.post<{ Params: { id: string }; Body: Json | undefined }>(
      "/v2/disputes/:id/evidence-text",
      async (request) => {
        const body = request.body ?? {};
        const text = str(body.evidence_text);
        if (!str(body.idempotency_key)) {
          throw new SandboxError(400, "idempotency_key is required", "MISSING_REQUIRED_PARAMETER");
        }
        if (text === undefined)
          throw new SandboxError(400, "evidence_text is required", "MISSING_REQUIRED_PARAMETER");
        return idempotent(request, () => ({
          evidence: {
            ...payments.addEvidenceText(
              request.params.id,
              str(body.evidence_type) ?? "GENERIC_EVIDENCE",
              text,
            ),
            dispute_id: request.params.id,
          },
        }));
      },
    );
    // Square's submit and accept carry no idempotency key: asked again, they answer the dispute's state.
    api.post<{ Params: { id: string } }>("/v2/disputes/:id/submit-evidence", async (request, reply) =>
      faults.play(
        state.takeDisputeFault("square"),
        request,
        reply,
        () => ({ dispute: payments.submitEvidence(request.params.id) }),
        serverError,
      ),
    );
    api.post<{ Params: { id: string } }>("/v2/disputes/:id/accept", async (request, reply) =>
      faults.play(
        state.takeDisputeFault("square"),
        request,
        reply,
        () => ({ dispute: payments.acceptDispute(request.params.id) }),
        serverError,
      ),
    );
    api.get<{ Querystring: { location_id?: string; states?: string } }>("/v2/disputes", async (request) => {
      const { location_id: location, states } = request.query;
      const disputes = [...state.squareDisputes.values()].filter(
        (dispute) =>
          (!location || dispute.location_id === location) &&
          (!states || states.split(",").includes(dispute.state)),
      );
      return { disputes: disputes.reverse() };
    });
  });
}
