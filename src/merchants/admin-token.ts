import { insertAuditEntry } from "../platform/audit/store.ts";
import { hashSecret, secretMatches } from "../platform/crypto/secret-hash.ts";
import type { Database } from "../platform/db/database.ts";
import { DomainError } from "../platform/errors/domain-error.ts";
import { FailureBudget } from "../platform/limits/failure-budget.ts";
import type { AdminTokenFile } from "../platform/settings/admin-token-file.ts";
import {
  deleteSetting,
  insertSettingIfAbsent,
  readSetting,
  replaceSetting,
  writeSetting,
} from "../platform/settings/store.ts";
import { newAdminToken } from "./secrets.ts";

const HASH = "admin_token_hash";
/** NOTIFY channel telling every instance the admin token was replaced. */
const ADMIN_TOKEN_CHANNEL = "admin_token_changed";
/**
 * The hash of a generated token nobody has used yet: every start can show that token again (from
 * its file) until it is used. Never the token itself, which would sit in the database's files.
 */
const UNCLAIMED = "admin_token_unclaimed";
const isHexHash = (value: string) => /^[0-9a-f]{64}$/.test(value);

/**
 * A new admin token, replacing the old one on every instance at once; shown only to the caller.
 * `actor` names who reset it in the operator's audit log.
 */
export async function resetAdminToken(db: Database, actor: string): Promise<string> {
  const token = newAdminToken();
  await db.transaction(async (tx) => {
    await writeSetting(tx, HASH, hashSecret(token).toString("hex"), ADMIN_TOKEN_CHANNEL);
    await deleteSetting(tx, UNCLAIMED);
    await insertAuditEntry(tx, {
      groupId: null,
      actor,
      action: "admin_token.reset",
      target: null,
      detail: null,
      address: null,
    });
  });
  return token;
}

/**
 * The bearer token of /admin/v1. ADMIN_TOKEN wins; otherwise the one generated on the first
 * start, whose hash is kept. Until that token is first used, every start shows it again from the
 * token file: a first start that failed half-way never locks the operator out.
 */
export class AdminAuthenticator {
  private hash: Buffer = hashSecret("");
  private unclaimedToken: string | undefined;
  private unclaimedHash: string | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly failures: FailureBudget;

  constructor(
    private readonly db: Database,
    private readonly configured: string | undefined,
    /** Failed admin-token attempts per address per minute before 429 (30). */
    failuresPerMinute: number,
    /** Where a generated token is kept in clear, for its operator only. */
    private readonly file: AdminTokenFile,
  ) {
    this.failures = new FailureBudget(
      failuresPerMinute,
      "Too many failed admin-token attempts from this address; retry later",
    );
  }

  /** The generated token while nobody has used it yet and its file is here; else undefined. */
  get unclaimed(): string | undefined {
    return this.unclaimedToken;
  }

  /** A generated token nobody has used yet, whose file is on another machine (or was deleted). */
  get unclaimedElsewhere(): boolean {
    return this.unclaimedHash !== undefined && this.unclaimedToken === undefined;
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
      this.unclaimedHash = await this.unclaimedHashOf(await readSetting(this.db, UNCLAIMED));
      const inFile = this.file.read();
      this.unclaimedToken =
        inFile !== undefined && this.unclaimedHash === stored && hashSecret(inFile).toString("hex") === stored
          ? inFile
          : undefined;
      return;
    }
    const token = newAdminToken();
    const hash = hashSecret(token).toString("hex");
    // The file first: once the hash is stored, the token can only be shown from there.
    this.file.write(token);
    const written = await this.db.transaction(async (tx) => {
      if (!(await insertSettingIfAbsent(tx, HASH, hash))) return false;
      await insertSettingIfAbsent(tx, UNCLAIMED, hash);
      return true;
    });
    // Another instance generated it first: take theirs.
    if (!written) return this.load();
    this.hash = Buffer.from(hash, "hex");
    this.unclaimedHash = hash;
    this.unclaimedToken = token;
  }

  /** An installation from before hashing kept the token itself: it moves to the file, its hash stays. */
  private async unclaimedHashOf(value: string | undefined): Promise<string | undefined> {
    if (value === undefined || isHexHash(value)) return value;
    this.file.write(value);
    const hash = hashSecret(value).toString("hex");
    await replaceSetting(this.db, UNCLAIMED, value, hash);
    return hash;
  }

  /** `authorization` as the request carried it; `clientAddress` is whose failures count against the limit. */
  readonly authenticate = async (authorization: string | undefined, clientAddress: string): Promise<void> => {
    this.failures.check(clientAddress);
    const match = /^Bearer (\S{1,500})$/.exec(authorization ?? "");
    if (!match?.[1] || !secretMatches(match[1], this.hash)) {
      this.failures.record(clientAddress);
      throw new DomainError("UNAUTHORIZED", "Missing or invalid admin token");
    }
    if (this.unclaimedHash) {
      this.unclaimedHash = undefined;
      this.unclaimedToken = undefined;
      await deleteSetting(this.db, UNCLAIMED);
    }
  };
}
