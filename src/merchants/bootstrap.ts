import type { Database } from "../db/database.ts";
import { type CreatedGroup, createGroup } from "./groups.ts";

/** On an empty database, a demo group so the README's curl works straight away. */
export async function createDemoGroupIfEmpty(db: Database, publicUrl: string): Promise<CreatedGroup | null> {
  return db.transaction(async (tx) => {
    // Serialises instances starting together on one empty database.
    await tx.query("SELECT pg_advisory_xact_lock(7302115)");
    const [existing] = await tx.query("SELECT 1 FROM groups LIMIT 1");
    if (existing) return null;
    return createGroup(tx, {
      name: "Demo group",
      safeSites: [{ name: "Default", url: publicUrl, isActive: true }],
    });
  });
}
