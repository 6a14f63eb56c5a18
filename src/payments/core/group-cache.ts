import type { Database } from "../../platform/db/database.ts";

/** A backstop only: changes arrive by NOTIFY (or at once, for changes made here). */
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_GROUPS = 10_000;

/**
 * Something a create reads for each group (its active SafeSites, its processor routes), kept in
 * memory so a create does not read it every time. A write NOTIFYs every instance on `channel`
 * with the group's id (a trigger of the table's); a change made by this instance also clears its
 * entry at once (`forget`), before the write's answer goes out.
 */
export class GroupCache<T> {
  private readonly known = new Map<string, { value: T; expiresAt: number }>();
  /** Bumped by every change: a read that began before one must not fill the cache. */
  private generation = 0;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Database,
    private readonly channel: string,
    private readonly load: (db: Database, groupId: string) => Promise<T>,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(this.channel, (groupId) => {
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

  async get(groupId: string): Promise<T> {
    const cached = this.known.get(groupId);
    if (cached && cached.expiresAt > Date.now()) return cached.value;
    const generation = this.generation;
    const value = await this.load(this.db, groupId);
    if (generation !== this.generation) return value;
    if (this.known.size >= CACHE_MAX_GROUPS) this.known.delete(this.known.keys().next().value as string);
    this.known.set(groupId, { value, expiresAt: Date.now() + CACHE_TTL_MS });
    return value;
  }
}
