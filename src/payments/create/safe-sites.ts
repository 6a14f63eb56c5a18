import type { Database } from "../../platform/db/database.ts";
import { GroupCache } from "../core/group-cache.ts";
import { listActiveSafeSites, SAFE_SITES_CHANNEL, type SafeSiteChoice } from "./store.ts";

/**
 * Each group's active SafeSites, kept in memory so a create makes one statement, not two. Any
 * write to `safe_sites` NOTIFYs every instance (migration 012's trigger).
 */
export class ActiveSafeSites extends GroupCache<SafeSiteChoice[]> {
  constructor(db: Database) {
    super(db, SAFE_SITES_CHANNEL, listActiveSafeSites);
  }

  /** The site whose turn it is (`turn` modulo the active count), or null when none is active. */
  async choose(groupId: string, turn: number): Promise<SafeSiteChoice | null> {
    const sites = await this.get(groupId);
    return sites[turn % sites.length] ?? null;
  }
}
