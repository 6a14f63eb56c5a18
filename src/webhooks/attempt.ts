import type { Config } from "../config/config.ts";
import type { Metrics } from "../platform/metrics/metrics.ts";
import type { Logger } from "../platform/telemetry/logger.ts";
import { tracing } from "../platform/telemetry/tracing.ts";
import type { OpenedSecrets } from "./opened-secrets.ts";
import type { OutcomeWriter } from "./outcome-writer.ts";
import type { Pace } from "./pace.ts";
import { buildRequest } from "./request.ts";
import type { AttemptResult, WebhookSender } from "./sender.ts";
import type { AttemptRecord, ClaimedDelivery } from "./sql/queue.ts";

/** One claimed delivery's attempt: the signed request, the exchange, its outcome and what follows. */
export class AttemptRunner {
  constructor(
    private readonly deps: {
      sender: WebhookSender;
      secrets: OpenedSecrets;
      pace: Pace;
      outcomes: OutcomeWriter;
      config: Pick<Config, "webhookRetryDelaysMs">;
      log: Logger;
      metrics: Metrics | undefined;
      /** A failed attempt whose delivery is due again after the delay. */
      retryIn: (delayMs: number) => void;
    },
  ) {}

  /**
   * The exchange as a client span in a trace of its own, linked to the request whose change queued
   * the delivery. The URL goes without its query and credentials, which can hold the receiver's
   * token; undici's own span for it is left out, as it would carry the whole URL.
   */
  private traced(delivery: ClaimedDelivery, send: () => Promise<AttemptResult>): Promise<AttemptResult> {
    if (!tracing().on) return send();
    const url = new URL(delivery.url);
    return tracing().span(
      "POST",
      {
        kind: "client",
        linkedTo: delivery.traceparent,
        attributes: {
          "http.request.method": "POST",
          "url.full": `${url.protocol}//${url.host}${url.pathname}`,
          "server.address": url.hostname,
          "checkout.event": delivery.event,
          "checkout.delivery_id": delivery.id,
        },
      },
      async (span) => {
        const result = await tracing().withoutHttpSpans(send);
        if (result.statusCode !== null) span.setAttribute("http.response.status_code", result.statusCode);
        if (result.outcome !== "delivered") span.fail(result.outcome);
        return result;
      },
    );
  }

  /**
   * Sends one attempt, and resolves when its exchange has ended (its slot is free again) with
   * `recorded`, which settles when its outcome is written.
   */
  async run(delivery: ClaimedDelivery): Promise<{ recorded: Promise<void> }> {
    if (delivery.attempts === 1) {
      this.deps.metrics?.webhookFirstAttemptDelaySeconds.observe(
        (Date.now() - delivery.created_at.getTime()) / 1000,
      );
    }
    const attemptedAt = new Date();
    if (delivery.webhook_secret === null) {
      // Its endpoint was deleted after the claim: nothing is sent, with no secret to sign it.
      const recorded = this.deps.outcomes.record({
        deliveryId: delivery.id,
        attempt: delivery.attempts,
        attemptedAt,
        statusCode: null,
        error: "endpoint deleted",
        durationMs: 0,
        answer: null,
        state: "failed",
        retryDelayMs: 0,
        endpointId: null,
      });
      return { recorded };
    }
    const { headers, body } = buildRequest(
      {
        ...delivery,
        webhook_secret: this.deps.secrets.open(delivery.webhook_secret),
        previous_webhook_secrets: delivery.previous_webhook_secrets.map((earlier) => ({
          ...earlier,
          secret: this.deps.secrets.open(earlier.secret),
        })),
      },
      attemptedAt,
    );
    const result = await this.traced(delivery, () => this.deps.sender.send(delivery.url, headers, body));
    this.deps.pace.timeAttempt(delivery.destination, result.durationMs);
    if (result.detail) {
      this.deps.log.warn({ deliveryId: delivery.id, reason: result.detail }, "webhook destination refused");
    }
    const delays = this.deps.config.webhookRetryDelaysMs;
    const retryDelay = result.outcome === "retry" ? delays[delivery.attempts - 1] : undefined;
    const state =
      result.outcome === "delivered" ? "succeeded" : retryDelay === undefined ? "failed" : "pending";
    // The slot is freed as soon as the exchange ends: the lease keeps the row from other
    // dispatchers until this outcome is written, in a batch with others finishing now.
    const recorded = this.deps.outcomes
      .record({
        deliveryId: delivery.id,
        attempt: delivery.attempts,
        attemptedAt,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
        answer: result.answer,
        state,
        retryDelayMs: retryDelay ?? 0,
        endpointId: delivery.endpoint_id,
      })
      .then(() => this.afterRecorded(delivery, result, state, retryDelay));
    return { recorded };
  }

  private afterRecorded(
    delivery: ClaimedDelivery,
    result: AttemptResult,
    state: AttemptRecord["state"],
    retryDelay: number | undefined,
  ) {
    const outcome = state === "failed" && result.outcome === "retry" ? "dropped" : result.outcome;
    this.deps.metrics?.webhookDeliveries.inc({ outcome });
    this.deps.metrics?.webhookAttemptSeconds.observe({ outcome }, result.durationMs / 1000);
    if (state === "pending") {
      // Each wait starts when the previous attempt fails (docs/api.md, "Webhooks").
      this.deps.retryIn(retryDelay ?? 0);
    } else if (state === "failed") {
      this.deps.log.warn(
        {
          deliveryId: delivery.id,
          attempts: delivery.attempts,
          statusCode: result.statusCode,
          error: result.error,
        },
        "webhook delivery dropped",
      );
    }
  }
}
