import { hashSecret, secretMatches } from "../platform/crypto/secret-hash.ts";
import type { Database } from "../platform/db/database.ts";
import { DomainError } from "../platform/errors/domain-error.ts";
import { FailureBudget } from "../platform/limits/failure-budget.ts";
import { API_KEYS_CHANNEL, findActiveApiKey } from "./store.ts";

export interface Merchant {
  groupId: string;
  publicKey: string;
}

/** The key pair a request presented, as its headers carried them (absent, or repeated). */
export interface PresentedKeys {
  publicKey: string | string[] | undefined;
  secretKey: string | string[] | undefined;
}

// Compared against when the public key is unknown, so both failures take the same time.
const DECOY_HASH = hashSecret("decoy");
const KEY_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 10_000;
/** Unknown public keys are remembered briefly, so guessing costs no query and times like a hit. */
const UNKNOWN_TTL_MS = 10_000;

const unauthorized = () => new DomainError("UNAUTHORIZED", "Missing or invalid API keys");

const keyOf = (value: string | string[] | undefined): string | undefined =>
  typeof value === "string" && KEY_PATTERN.test(value) ? value : undefined;

interface KnownKey {
  /** Null for a public key that does not exist (or is revoked). */
  groupId: string | null;
  secretHash: Buffer;
  expiresAt: number;
}

/**
 * Checks X-Public-Key/X-Secret-Key. Active keys' hashes are kept in memory for a short time, so a
 * request costs no database round trip for auth; the secret is still compared on every request.
 * A revocation clears the entry here at once and, through NOTIFY, on every other instance.
 */
export class MerchantAuthenticator {
  private readonly known = new Map<string, KnownKey>();
  private readonly failures: FailureBudget;
  /** Bumped by every revocation: a lookup that began before one must not fill the cache. */
  private generation = 0;
  private unlisten: (() => Promise<void>) | undefined;
  /** Told of each revocation (null: the listener reconnected and any key may have gone). */
  private readonly revocationListeners = new Set<(publicKey: string | null) => void>();

  constructor(
    private readonly db: Database,
    /** Failed authentications allowed per client address per minute before it gets 429. */
    failuresPerMinute: number,
  ) {
    this.failures = new FailureBudget(
      failuresPerMinute,
      "Too many failed authentications from this address; retry later",
    );
  }

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(API_KEYS_CHANNEL, (publicKey) => {
      // No payload means the listener reconnected and may have missed some: forget everything.
      this.generation += 1;
      if (publicKey) this.known.delete(publicKey);
      else this.known.clear();
      this.tellRevoked(publicKey || null);
    });
  }

  readonly forget = (publicKey: string): void => {
    this.generation += 1;
    this.known.delete(publicKey);
    this.tellRevoked(publicKey);
  };

  /** Calls `listener` on every revocation this instance hears of; returns its removal. */
  onRevoked(listener: (publicKey: string | null) => void): () => void {
    this.revocationListeners.add(listener);
    return () => this.revocationListeners.delete(listener);
  }

  private tellRevoked(publicKey: string | null): void {
    for (const listener of [...this.revocationListeners]) listener(publicKey);
  }

  /** Whether the key still belongs to the group: long-lived requests ask again as they go. */
  async stillActive(merchant: Merchant): Promise<boolean> {
    return (await this.lookup(merchant.publicKey)).groupId === merchant.groupId;
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
  }

  private async lookup(publicKey: string): Promise<KnownKey> {
    const cached = this.known.get(publicKey);
    if (cached && cached.expiresAt > Date.now()) return cached;
    const generation = this.generation;
    const row = await findActiveApiKey(this.db, publicKey);
    const key: KnownKey = row
      ? {
          groupId: row.group_id,
          secretHash: Buffer.from(row.secret_hash),
          expiresAt: Date.now() + CACHE_TTL_MS,
        }
      : { groupId: null, secretHash: DECOY_HASH, expiresAt: Date.now() + UNKNOWN_TTL_MS };
    // A revocation that arrived while we read must win: this answer may predate it.
    if (generation !== this.generation) return row ? { ...key, expiresAt: 0 } : key;
    if (this.known.size >= CACHE_MAX_ENTRIES) this.known.delete(this.known.keys().next().value as string);
    this.known.set(publicKey, key);
    return key;
  }

  /** `clientAddress` is whose failures count against the limit. */
  async authenticate(presented: PresentedKeys, clientAddress: string): Promise<Merchant> {
    this.failures.check(clientAddress);
    const publicKey = keyOf(presented.publicKey);
    const secretKey = keyOf(presented.secretKey);
    // Known and unknown keys take the same path: one cached lookup and one constant-time compare.
    const key = publicKey ? await this.lookup(publicKey) : undefined;
    const matches = secretMatches(secretKey ?? "", key?.secretHash ?? DECOY_HASH);
    if (!key?.groupId || !secretKey || !matches) {
      this.failures.record(clientAddress);
      throw unauthorized();
    }
    return { groupId: key.groupId, publicKey: publicKey as string };
  }
}
