import { type Audit, withAudit } from "../platform/audit/store.ts";
import type { Database } from "../platform/db/database.ts";
import { deliverableUrl } from "./reachable.ts";
import { findGroupWebhookUrl, updateGroupWebhookUrl } from "./sql/group-url.ts";

/**
 * The group's own webhook URL (docs/api.md, "Webhook settings"): events of payments without a
 * webhookUrl of their own are delivered there, to the URL set when the event is made. A URL the
 * unreachable-host rule refuses is a 400: it would never be posted to.
 */
export class WebhookSettings {
  constructor(
    private readonly db: Database,
    private readonly allowedPrivateHosts: readonly string[],
  ) {}

  async get(groupId: string): Promise<{ url: string | null }> {
    return { url: await findGroupWebhookUrl(this.db, groupId) };
  }

  /** Sets (or with null clears) the URL; `audit` is written in the same transaction. */
  async set(groupId: string, url: string | null, audit?: Audit<void>): Promise<{ url: string | null }> {
    const deliverTo = url === null ? null : deliverableUrl(url, this.allowedPrivateHosts);
    await withAudit(this.db, audit, (q) => updateGroupWebhookUrl(q, groupId, url, deliverTo));
    return { url };
  }
}
