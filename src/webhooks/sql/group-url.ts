// The group's own webhook URL: as the merchant gave it, and the address deliveries go to.

import type { Queryable } from "../../platform/db/database.ts";

export async function findGroupWebhookUrl(q: Queryable, groupId: string): Promise<string | null> {
  const [row] = await q.query<{ webhook_url: string | null }>(
    "SELECT webhook_url FROM groups WHERE id = $1",
    [groupId],
  );
  return row?.webhook_url ?? null;
}

/** `deliverTo`: the URL as deliveries use it (null when cleared). */
export async function updateGroupWebhookUrl(
  q: Queryable,
  groupId: string,
  url: string | null,
  deliverTo: string | null,
): Promise<void> {
  await q.query("UPDATE groups SET webhook_url = $2, webhook_delivery_url = $3 WHERE id = $1", [
    groupId,
    url,
    deliverTo,
  ]);
}
