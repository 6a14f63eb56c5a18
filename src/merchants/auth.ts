import type { FastifyRequest } from "fastify";
import type { Database } from "../db/database.ts";
import { ApiError } from "../http/errors.ts";
import { hashSecret, secretMatches } from "./secrets.ts";
import { API_KEYS_CHANNEL, findActiveApiKey } from "./store.ts";

export interface Merchant {
  groupId: string;
  publicKey: string;
}

declare module "fastify" {
  interface FastifyRequest {
    merchant: Merchant;
  }
}

// Compared against when the public key is unknown, so both failures take the same time.
const DECOY_HASH = hashSecret("decoy");
const KEY_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 10_000;

const unauthorized = () => new ApiError("UNAUTHORIZED", "Missing or invalid API keys");

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" && KEY_PATTERN.test(value) ? value : undefined;
}

interface KnownKey {
  groupId: string;
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
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly db: Database) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(API_KEYS_CHANNEL, (publicKey) => {
      // No payload means the listener reconnected and may have missed some: forget everything.
      if (publicKey) this.known.delete(publicKey);
      else this.known.clear();
    });
  }

  readonly forget = (publicKey: string): void => {
    this.known.delete(publicKey);
  };

  async stop(): Promise<void> {
    await this.unlisten?.();
  }

  private async lookup(publicKey: string): Promise<KnownKey | undefined> {
    const cached = this.known.get(publicKey);
    if (cached && cached.expiresAt > Date.now()) return cached;
    const row = await findActiveApiKey(this.db, publicKey);
    if (!row) {
      this.known.delete(publicKey);
      return undefined;
    }
    const key = {
      groupId: row.group_id,
      secretHash: Buffer.from(row.secret_hash),
      expiresAt: Date.now() + CACHE_TTL_MS,
    };
    if (this.known.size >= CACHE_MAX_ENTRIES) this.known.delete(this.known.keys().next().value as string);
    this.known.set(publicKey, key);
    return key;
  }

  async authenticate(request: FastifyRequest): Promise<Merchant> {
    const publicKey = header(request, "x-public-key");
    const secretKey = header(request, "x-secret-key");
    if (!publicKey || !secretKey) throw unauthorized();
    const key = await this.lookup(publicKey);
    const matches = secretMatches(secretKey, key ? key.secretHash : DECOY_HASH);
    if (!key || !matches) throw unauthorized();
    return { groupId: key.groupId, publicKey };
  }
}
