// A group's webhook endpoints (docs/webhooks.md, "Endpoints"): several per group, each with the
// events it takes, its own signing secret, and a test that sends one signed event now.
import { randomUUID } from "node:crypto";
import { newWebhookSecret } from "../merchants/secrets.ts";
import { type Audit, withAudit } from "../platform/audit/store.ts";
import type { SecretBox } from "../platform/crypto/secret-box.ts";
import type { Database } from "../platform/db/database.ts";
import { DomainError, notFound } from "../platform/errors/domain-error.ts";
import { UUID_PATTERN } from "../platform/format/uuid.ts";
import { TEST_EVENT_NAME, WEBHOOK_EVENT_NAMES } from "./event-names.ts";
import { destinationOf, type WebhookOutbox } from "./outbox.ts";
import { deliverableUrl } from "./reachable.ts";
import {
  deleteEndpoint,
  type EndpointChange,
  type EndpointRow,
  endpointDayTotals,
  findEndpoint,
  insertEndpoint,
  lastEndpointAttempts,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from "./sql/endpoints.ts";
import { insertTestEvent } from "./sql/outbox.ts";

/** At most this many endpoints a group. */
export const ENDPOINT_LIMIT = 16;
/** How long a rotated-out secret goes on signing unless the request says. */
export const DEFAULT_GRACE_SECONDS = 86_400;

// A type, not an interface: the route's answer schema takes it as an open object.
export type WebhookEndpoint = {
  endpointId: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: "failing" | "disabled" | null;
  createdAt: string;
};

export const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  endpointId: row.id,
  url: row.url,
  events: row.events,
  description: row.description,
  enabled: row.enabled,
  disabledReason: row.disabled_reason,
  createdAt: row.created_at.toISOString(),
});

export interface EndpointActivity {
  endpoint: WebhookEndpoint;
  attempts24h: number;
  /** Acknowledged attempts of the last 24 hours as a share of them; null with none. */
  deliveredShare24h: number | null;
  lastAttempts: {
    at: Date;
    event: string;
    statusCode: number | null;
    error: string | null;
    answer: string | null;
  }[];
}

export interface EndpointInput {
  url?: string | undefined;
  events?: readonly string[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

export class WebhookEndpoints {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly outbox: WebhookOutbox,
    private readonly allowedPrivateHosts: readonly string[],
  ) {}

  /** A new endpoint and its secret, shown this once. */
  async create(
    groupId: string,
    input: EndpointInput & { url: string },
    audit: Audit<WebhookEndpoint>,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const url = this.reachable(input.url);
    const events = this.events(input.events) ?? [...WEBHOOK_EVENT_NAMES];
    const secret = newWebhookSecret();
    // In one transaction, the audit entry's: the limit is checked under the group's lock.
    const endpoint = await withAudit(this.db, audit, async (q) => {
      const row = await insertEndpoint(
        q,
        {
          id: randomUUID(),
          groupId,
          url,
          destination: destinationOf(url),
          events,
          description: input.description ?? null,
          secret: this.box.seal(secret),
        },
        ENDPOINT_LIMIT,
      );
      if (!row) {
        throw new DomainError("INVALID_REQUEST", `A group has at most ${ENDPOINT_LIMIT} webhook endpoints`);
      }
      return toEndpoint(row);
    });
    return { endpoint, secret };
  }

  async list(groupId: string): Promise<WebhookEndpoint[]> {
    return (await listEndpoints(this.db, groupId)).map(toEndpoint);
  }

  /** The endpoints with their last 24 hours (attempts, share acknowledged) and last attempts. */
  async activity(groupId: string, lastAttempts = 3): Promise<EndpointActivity[]> {
    const endpoints = await this.list(groupId);
    const ids = endpoints.map((endpoint) => endpoint.endpointId);
    if (ids.length === 0) return [];
    const [totals, attempts] = await Promise.all([
      endpointDayTotals(this.db, ids),
      lastEndpointAttempts(this.db, ids, lastAttempts),
    ]);
    return endpoints.map((endpoint) => {
      const day = totals.find((total) => total.endpoint_id === endpoint.endpointId);
      return {
        endpoint,
        attempts24h: day?.attempts ?? 0,
        deliveredShare24h: day && day.attempts > 0 ? day.delivered / day.attempts : null,
        lastAttempts: attempts
          .filter((attempt) => attempt.endpoint_id === endpoint.endpointId)
          .map((attempt) => ({
            at: attempt.attempted_at,
            event: attempt.event,
            statusCode: attempt.status_code,
            error: attempt.error,
            answer: attempt.answer,
          })),
      };
    });
  }

  async get(groupId: string, endpointId: string): Promise<WebhookEndpoint> {
    const row = UUID_PATTERN.test(endpointId) ? await findEndpoint(this.db, groupId, endpointId) : undefined;
    if (!row) throw notFound("Webhook endpoint");
    return toEndpoint(row);
  }

  async update(
    groupId: string,
    endpointId: string,
    input: EndpointInput,
    audit: Audit<WebhookEndpoint>,
  ): Promise<WebhookEndpoint> {
    if (!UUID_PATTERN.test(endpointId)) throw notFound("Webhook endpoint");
    const change: EndpointChange = {
      url: input.url === undefined ? undefined : this.withDestination(this.reachable(input.url)),
      events: this.events(input.events),
      description: input.description,
      enabled: input.enabled,
    };
    return withAudit(this.db, audit, async (q) => {
      const row = await updateEndpoint(q, groupId, endpointId, change);
      if (!row) throw notFound("Webhook endpoint");
      return toEndpoint(row);
    });
  }

  async remove(groupId: string, endpointId: string, audit: Audit<void>): Promise<void> {
    if (!UUID_PATTERN.test(endpointId)) throw notFound("Webhook endpoint");
    await withAudit(this.db, audit, async (q) => {
      if (!(await deleteEndpoint(q, groupId, endpointId))) throw notFound("Webhook endpoint");
    });
  }

  /** A new secret, shown this once; the old one signs beside it for `graceSeconds`. */
  async rotateSecret(
    groupId: string,
    endpointId: string,
    graceSeconds: number,
    audit: Audit<void>,
  ): Promise<{ secret: string }> {
    if (!UUID_PATTERN.test(endpointId)) throw notFound("Webhook endpoint");
    const secret = newWebhookSecret();
    await withAudit(this.db, audit, async (q) => {
      if (!(await rotateEndpointSecret(q, groupId, endpointId, this.box.seal(secret), graceSeconds))) {
        throw notFound("Webhook endpoint");
      }
    });
    return { secret };
  }

  /** One signed `webhook.test` event to this endpoint, delivered and counted like any other. */
  async test(groupId: string, endpointId: string, audit: Audit<void>): Promise<void> {
    if (!UUID_PATTERN.test(endpointId)) throw notFound("Webhook endpoint");
    await withAudit(this.db, audit, async (q) => {
      const row = await findEndpoint(q, groupId, endpointId);
      if (!row) throw notFound("Webhook endpoint");
      await insertTestEvent(q, {
        eventId: randomUUID(),
        deliveryId: randomUUID(),
        groupId,
        endpointId,
        payload: { event: TEST_EVENT_NAME, endpointId },
      });
    });
    this.outbox.wake();
  }

  private reachable(raw: string): string {
    return deliverableUrl(raw, this.allowedPrivateHosts);
  }

  private withDestination(url: string): { url: string; destination: string } {
    return { url, destination: destinationOf(url) };
  }

  /** The event names asked for, each one of the spec's; none given: unchanged. */
  private events(names: readonly string[] | undefined): string[] | undefined {
    if (names === undefined) return undefined;
    const unknown = names.filter((name) => !(WEBHOOK_EVENT_NAMES as readonly string[]).includes(name));
    if (unknown.length > 0) {
      throw new DomainError(
        "INVALID_REQUEST",
        `events: unknown event ${unknown.map((name) => JSON.stringify(name)).join(", ")}; one of ${WEBHOOK_EVENT_NAMES.join(", ")}`,
      );
    }
    if (names.length === 0) throw new DomainError("INVALID_REQUEST", "events: at least one event");
    return [...new Set(names)];
  }
}
