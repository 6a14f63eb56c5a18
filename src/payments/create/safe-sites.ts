import type { Database } from "../../db/database.ts";
import { listActiveSafeSites, SAFE_SITES_CHANNEL, type SafeSiteChoice } from "./store.ts";

/** A backstop only: changes arrive by NOTIFY (or at once, for changes made here). */
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_GROUPS = 10_000;

interface KnownSites {
  sites: SafeSiteChoice[];
  expiresAt: number;
}

/**
 * Each group's active SafeSites, kept in memory so a create makes one statement, not two. Any
 * write to `safe_sites` NOTIFYs every instance (migration 012's trigger); a change made by this
 * instance also clears its entry at once, before the write's answer goes out.
 */
export class ActiveSafeSites {
  private readonly known = new Map<string, KnownSites>();
  /** Bumped by every change: a read that began before one must not fill the cache. */
  private generation = 0;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly db: Database) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(SAFE_SITES_CHANNEL, (groupId) => {
      // No payload means the listener reconnected and may have missed some: forget everything.
      if (groupId) this.forget(groupId);
      else {
        this.generation += 1;
        this.known.clear();
      }
    });
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
  }

  readonly forget = (groupId: string): void => {
    this.generation += 1;
    this.known.delete(groupId);
  };

  /** The site whose turn it is (`turn` modulo the active count), or null when none is active. */
  async choose(groupId: string, turn: number): Promise<SafeSiteChoice | null> {
    const sites = await this.list(groupId);
    return sites[turn % sites.length] ?? null;
  }

  private async list(groupId: string): Promise<SafeSiteChoice[]> {
    const cached = this.known.get(groupId);
    if (cached && cached.expiresAt > Date.now()) return cached.sites;
    const generation = this.generation;
    const sites = await listActiveSafeSites(this.db, groupId);
    if (generation !== this.generation) return sites;
    if (this.known.size >= CACHE_MAX_GROUPS) this.known.delete(this.known.keys().next().value as string);
    this.known.set(groupId, { sites, expiresAt: Date.now() + CACHE_TTL_MS });
    return sites;
  }
}
