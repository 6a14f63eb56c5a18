import { randomUUID } from "node:crypto";
import { type Audit, type AuditEntry, insertAuditEntry, withAudit } from "../platform/audit/store.ts";
import type { SecretBox } from "../platform/crypto/secret-box.ts";
import { hashSecret } from "../platform/crypto/secret-hash.ts";
import type { Database, Queryable } from "../platform/db/database.ts";
import { DomainError, notFound } from "../platform/errors/domain-error.ts";
import { UUID_PATTERN } from "../platform/format/uuid.ts";
import { insertSettingIfAbsent, readSetting } from "../platform/settings/store.ts";
import { newPublicKey, newSecretKey, newWebhookSecret } from "./secrets.ts";
import {
  findGroupRow,
  insertApiKey,
  insertGroup,
  insertSafeSite,
  listApiKeys,
  listGroupRows,
  listGroupSecrets,
  listSafeSiteRows,
  lockAndCheckAnyGroup,
  moveDefaultSafeSite,
  replaceGroupSecrets,
  revokeApiKey,
  rotateGroupWebhookSecret,
  type SafeSiteRow,
  updateSafeSite,
} from "./store.ts";

export interface SafeSite {
  id: string;
  name: string;
  url: string;
  isActive: boolean;
}

export interface SafeSiteInput {
  name: string;
  url: string;
  isActive?: boolean | undefined;
}

export interface Group {
  groupId: string;
  groupName: string;
  safeSites: SafeSite[];
}

export interface KeyPair {
  publicKey: string;
  secretKey: string;
}

export interface CreatedGroup extends Group, KeyPair {
  webhookSecret: string;
}

const toSafeSite = (row: SafeSiteRow): SafeSite => ({
  id: row.id,
  name: row.name,
  url: row.url,
  isActive: row.is_active,
});

/** A SafeSite URL is a base: the hosted link is `{url}/pay/{token}`. */
const normaliseSiteUrl = (url: string): string => url.replace(/\/+$/, "");
/**
 * Earlier signing secrets that may still sign at once: every one signs every webhook, so a burst
 * of rotations must not grow each delivery's signature header without bound.
 */
const MAX_EARLIER_SECRETS = 9;

/** The sandbox's demo group, made on the first start: its id, kept with the data. */
const DEMO_GROUP_SETTING = "demo_group_id";

/** Groups (merchants), their SafeSites, API keys and webhook signing secrets. */
export class MerchantsService {
  constructor(
    private readonly db: Database,
    /** Seals the webhook signing secrets at rest (SECRETS_KEY). */
    private readonly box: SecretBox,
    /** Told of revocations made here, ahead of the NOTIFY that reaches every instance. */
    private readonly onKeyRevoked: (publicKey: string) => void = () => {},
    /** Told of SafeSite changes made here (by group), ahead of the NOTIFY that reaches every instance. */
    private readonly onSafeSitesChanged: (groupId: string) => void = () => {},
  ) {}

  /** Seals every signing secret with the current key (plain ones from before, or under an older key). */
  async resealWebhookSecrets(): Promise<number> {
    let resealed = 0;
    const reseal = (value: string) => this.box.seal(this.box.reveal(value));
    for (const row of await listGroupSecrets(this.db)) {
      const was = { current: row.webhook_secret, earlier: row.previous_webhook_secrets };
      if (
        [was.current, ...was.earlier.map((each) => each.secret)].every((value) => this.box.isCurrent(value))
      )
        continue;
      const sealed = {
        current: reseal(was.current),
        earlier: was.earlier.map((each) => ({ ...each, secret: reseal(each.secret) })),
      };
      if (await replaceGroupSecrets(this.db, row.id, was, sealed)) resealed++;
    }
    return resealed;
  }

  /** A group with its SafeSites and first key pair; the secrets are shown only in this answer. */
  createGroup(
    input: { name: string; safeSites: SafeSiteInput[] },
    audit?: Audit<CreatedGroup>,
  ): Promise<CreatedGroup> {
    return this.db.transaction(async (tx) => {
      const group = await this.insertGroupWithKey(tx, input);
      const entry = audit?.(group);
      if (entry) await insertAuditEntry(tx, entry);
      return group;
    });
  }

  /** On an empty database, a demo group so the README's curl works straight away. */
  createDemoGroupIfEmpty(publicUrl: string): Promise<CreatedGroup | null> {
    return this.db.transaction(async (tx) => {
      if (await lockAndCheckAnyGroup(tx)) return null;
      const demo = await this.insertGroupWithKey(tx, {
        name: "Demo group",
        safeSites: [{ name: "Default", url: publicUrl, isActive: true }],
      });
      await insertSettingIfAbsent(tx, DEMO_GROUP_SETTING, demo.groupId);
      return demo;
    });
  }

  /**
   * The demo group's SafeSite is the service's own address: when PUBLIC_URL changes (another
   * port), it follows, so demo payment links never point at a dead address. True when it moved.
   */
  async demoFollowsPublicUrl(publicUrl: string): Promise<boolean> {
    const demoGroupId = await readSetting(this.db, DEMO_GROUP_SETTING);
    if (!demoGroupId) return false;
    const moved = await moveDefaultSafeSite(this.db, demoGroupId, normaliseSiteUrl(publicUrl));
    if (moved) this.onSafeSitesChanged(demoGroupId);
    return moved;
  }

  async getGroup(groupId: string): Promise<Group> {
    const row = UUID_PATTERN.test(groupId) ? await findGroupRow(this.db, groupId) : undefined;
    if (!row) throw notFound("Group");
    const sites = await listSafeSiteRows(this.db, groupId);
    return { groupId: row.id, groupName: row.name, safeSites: sites.map(toSafeSite) };
  }

  async addSafeSite(groupId: string, site: SafeSiteInput, audit?: Audit<SafeSite>): Promise<SafeSite> {
    await this.getGroup(groupId);
    const added = await withAudit(this.db, audit, async (q) =>
      toSafeSite(await this.insertSite(q, groupId, site)),
    );
    this.onSafeSitesChanged(groupId);
    return added;
  }

  /** `withinGroup` keeps a merchant's change to its own SafeSites; `audit` is given the site's group. */
  async updateSafeSite(
    id: string,
    patch: Partial<SafeSiteInput>,
    withinGroup: string | null,
    audit: (site: SafeSite, groupId: string) => AuditEntry,
  ): Promise<SafeSite> {
    if (!UUID_PATTERN.test(id)) throw notFound("SafeSite");
    const { site, groupId } = await this.db.transaction(async (tx) => {
      const changes = {
        name: patch.name ?? null,
        url: patch.url === undefined ? null : normaliseSiteUrl(patch.url),
        isActive: patch.isActive ?? null,
      };
      const row = await updateSafeSite(tx, id, changes, withinGroup);
      if (!row) throw notFound("SafeSite");
      const changed = toSafeSite(row);
      await insertAuditEntry(tx, audit(changed, row.group_id));
      return { site: changed, groupId: row.group_id };
    });
    this.onSafeSitesChanged(groupId);
    return site;
  }

  async issueKey(groupId: string, audit?: Audit<KeyPair>): Promise<KeyPair> {
    await this.getGroup(groupId);
    return withAudit(this.db, audit, (q) => this.insertKey(q, groupId));
  }

  /**
   * Revoked at once on every instance. The key's group (which `audit` is given), or null when no
   * active key (of `withinGroup`) has that public key.
   */
  async revokeKey(
    publicKey: string,
    withinGroup: string | null,
    audit: Audit<string | null>,
  ): Promise<string | null> {
    const revoked = await withAudit(this.db, audit, (q) => revokeApiKey(q, publicKey, withinGroup));
    if (revoked) this.onKeyRevoked(publicKey);
    return revoked;
  }

  async keys(groupId: string) {
    const rows = await listApiKeys(this.db, groupId);
    return rows.map((row) => ({
      publicKey: row.public_key,
      createdAt: row.created_at,
      revokedAt: row.revoked_at,
    }));
  }

  async groups(limit: number) {
    const rows = await listGroupRows(this.db, limit);
    return rows.map((row) => ({
      groupId: row.id,
      groupName: row.name,
      activeSafeSites: row.active_sites,
      createdAt: row.created_at,
    }));
  }

  /** The signing secret, for an owner or developer who asked to see it (the caller audits). */
  async webhookSecret(groupId: string): Promise<string> {
    const row = UUID_PATTERN.test(groupId) ? await findGroupRow(this.db, groupId) : undefined;
    if (!row) throw notFound("Group");
    return this.box.reveal(row.webhook_secret);
  }

  /**
   * A new signing secret. The one it replaces keeps signing for `graceSeconds`, and every earlier
   * one until its own expiry, so a receiver still on any of them keeps verifying.
   */
  async rotateWebhookSecret(groupId: string, graceSeconds: number, audit: Audit<unknown>) {
    if (!UUID_PATTERN.test(groupId)) throw notFound("Group");
    return withAudit(this.db, audit, async (q) => {
      const secret = newWebhookSecret();
      const rotation = await rotateGroupWebhookSecret(
        q,
        groupId,
        this.box.seal(secret),
        graceSeconds,
        MAX_EARLIER_SECRETS,
      );
      if (!rotation) throw notFound("Group");
      if (!rotation.rotated) {
        throw new DomainError(
          "INVALID_REQUEST",
          `${MAX_EARLIER_SECRETS} earlier signing secrets are still in their grace period: wait until one ` +
            "expires, or rotate with graceSeconds 0",
        );
      }
      return { webhookSecret: secret, previousSecretValidUntil: rotation.retiredUntil.toISOString() };
    });
  }

  private async insertGroupWithKey(
    tx: Queryable,
    input: { name: string; safeSites: SafeSiteInput[] },
  ): Promise<CreatedGroup> {
    const groupId = randomUUID();
    const webhookSecret = newWebhookSecret();
    await insertGroup(tx, { id: groupId, name: input.name, webhookSecret: this.box.seal(webhookSecret) });
    const safeSites: SafeSite[] = [];
    for (const site of input.safeSites) safeSites.push(toSafeSite(await this.insertSite(tx, groupId, site)));
    const keys = await this.insertKey(tx, groupId);
    return { groupId, groupName: input.name, safeSites, ...keys, webhookSecret };
  }

  private insertSite(q: Queryable, groupId: string, site: SafeSiteInput): Promise<SafeSiteRow> {
    return insertSafeSite(q, {
      id: randomUUID(),
      groupId,
      name: site.name,
      url: normaliseSiteUrl(site.url),
      isActive: site.isActive ?? true,
    });
  }

  private async insertKey(q: Queryable, groupId: string): Promise<KeyPair> {
    const pair = { publicKey: newPublicKey(), secretKey: newSecretKey() };
    await insertApiKey(q, { publicKey: pair.publicKey, groupId, secretHash: hashSecret(pair.secretKey) });
    return pair;
  }
}
