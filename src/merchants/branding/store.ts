// The statements of a group's branding: the name, colour and logo its customers see, and receipts.
import type { Queryable } from "../../platform/db/database.ts";

export interface BrandingRow {
  name: string;
  display_name: string | null;
  brand_color: string | null;
  logo_type: string | null;
  /** A short digest of the logo's bytes: its URL changes when it does, so caches may keep it. */
  logo_digest: string | null;
  receipts: boolean;
  reply_to: string | null;
}

export async function findBranding(q: Queryable, groupId: string): Promise<BrandingRow | undefined> {
  const [row] = await q.query<BrandingRow>(
    `SELECT name, display_name, brand_color, logo_type, receipts, reply_to,
       CASE WHEN logo IS NULL THEN NULL ELSE substr(md5(logo), 1, 12) END AS logo_digest
     FROM groups WHERE id = $1`,
    [groupId],
  );
  return row;
}

export async function findLogo(
  q: Queryable,
  groupId: string,
): Promise<{ logo: Buffer; logo_type: string } | undefined> {
  const [row] = await q.query<{ logo: Buffer | null; logo_type: string | null }>(
    "SELECT logo, logo_type FROM groups WHERE id = $1",
    [groupId],
  );
  return row?.logo && row.logo_type ? { logo: row.logo, logo_type: row.logo_type } : undefined;
}

/** Each field: undefined leaves it, null clears it. */
export interface BrandingChange {
  displayName?: string | null | undefined;
  brandColor?: string | null | undefined;
  logo?: { bytes: Buffer; type: "image/png" | "image/jpeg" } | null | undefined;
  receipts?: boolean | undefined;
  replyTo?: string | null | undefined;
}

export async function updateBranding(q: Queryable, groupId: string, change: BrandingChange): Promise<void> {
  await q.query(
    `UPDATE groups SET
       display_name = CASE WHEN $2::boolean THEN $3 ELSE display_name END,
       brand_color = CASE WHEN $4::boolean THEN $5 ELSE brand_color END,
       logo = CASE WHEN $6::boolean THEN $7::bytea ELSE logo END,
       logo_type = CASE WHEN $6::boolean THEN $8 ELSE logo_type END,
       receipts = COALESCE($9, receipts),
       reply_to = CASE WHEN $10::boolean THEN $11 ELSE reply_to END
     WHERE id = $1`,
    [
      groupId,
      change.displayName !== undefined,
      change.displayName ?? null,
      change.brandColor !== undefined,
      change.brandColor ?? null,
      change.logo !== undefined,
      change.logo?.bytes ?? null,
      change.logo?.type ?? null,
      change.receipts ?? null,
      change.replyTo !== undefined,
      change.replyTo ?? null,
    ],
  );
}
