import type { FastifyRequest } from "fastify";
import type { Database, Queryable } from "../db/database.ts";
import { ApiError } from "../http/errors.ts";
import { FailureBudget } from "../http/failure-budget.ts";
import { hashSecret, secretMatches } from "../http/secret-hash.ts";
import { deleteSetting, insertSettingIfAbsent, readSetting, writeSetting } from "../settings/store.ts";
import { newAdminToken } from "./secrets.ts";

const HASH = "admin_token_hash";
/** NOTIFY channel telling every instance the admin token was replaced. */
const ADMIN_TOKEN_CHANNEL = "admin_token_changed";
/** A generated token nobody has used yet, kept so every start can show it until it is used. */
const UNCLAIMED = "admin_token_unclaimed";

/** A new admin token, replacing the old one on every instance at once; shown only to the caller. */
export async function resetAdminToken(db: Queryable): Promise<string> {
  const token = newAdminToken();
  await writeSetting(db, HASH, hashSecret(token).toString("hex"), ADMIN_TOKEN_CHANNEL);
  await deleteSetting(db, UNCLAIMED);
  return token;
}

/**
 * The bearer token of /admin/v1. ADMIN_TOKEN wins; otherwise the one generated on the first
 * start, whose hash is kept. Until that token is first used, `unclaimed` holds it so the start-up
 * can show it again: a first start that failed half-way never locks the operator out.
 */
export class AdminAuthenticator {
  private hash: Buffer = hashSecret("");
  private unclaimedToken: string | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly failures: FailureBudget;

  constructor(
    private readonly db: Database,
    private readonly configured: string | undefined,
    /** DESIGN §6: failed admin-token attempts per address per minute before 429 (30). */
    failuresPerMinute: number,
  ) {
    this.failures = new FailureBudget(
      failuresPerMinute,
      "Too many failed admin-token attempts from this address; retry later",
    );
  }

  /** The generated token while nobody has used it yet; undefined once used or when configured. */
  get unclaimed(): string | undefined {
    return this.unclaimedToken;
  }

  async start(): Promise<void> {
    await this.load();
    if (!this.configured) {
      // `checkout admin reset-token` on any machine replaces the hash here too.
      this.unlisten = await this.db.listen(ADMIN_TOKEN_CHANNEL, () => void this.load().catch(() => {}));
    }
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
  }

  private async load(): Promise<void> {
    if (this.configured) {
      this.hash = hashSecret(this.configured);
      return;
    }
    const stored = await readSetting(this.db, HASH);
    if (stored) {
      this.hash = Buffer.from(stored, "hex");
      this.unclaimedToken = await readSetting(this.db, UNCLAIMED);
      return;
    }
    const token = newAdminToken();
    const written = await this.db.transaction(async (tx) => {
      if (!(await insertSettingIfAbsent(tx, HASH, hashSecret(token).toString("hex")))) return false;
      await insertSettingIfAbsent(tx, UNCLAIMED, token);
      return true;
    });
    // Another instance generated it first: take theirs.
    if (!written) return this.load();
    this.hash = hashSecret(token);
    this.unclaimedToken = token;
  }

  readonly authenticate = async (request: FastifyRequest): Promise<void> => {
    this.failures.check(request.ip);
    const match = /^Bearer (\S{1,500})$/.exec(request.headers.authorization ?? "");
    if (!match?.[1] || !secretMatches(match[1], this.hash)) {
      this.failures.record(request.ip);
      throw new ApiError("UNAUTHORIZED", "Missing or invalid admin token");
    }
    if (this.unclaimedToken) {
      this.unclaimedToken = undefined;
      await deleteSetting(this.db, UNCLAIMED);
    }
  };
}
