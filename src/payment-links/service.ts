import { randomBytes, randomUUID } from "node:crypto";
import { type Metadata, storedMetadata } from "../payments/core/metadata.ts";
import type { ActiveSafeSites } from "../payments/create/safe-sites.ts";
import { LinkDeactivatedError, type PaymentCreation } from "../payments/create/service.ts";
import type { PaymentQueries } from "../payments/queries/service.ts";
import { type Audit, withAudit } from "../platform/audit/store.ts";
import type { Database } from "../platform/db/database.ts";
import { DomainError, notFound } from "../platform/errors/domain-error.ts";
import { type Currency, exponentOf, majorUnits, readAmount } from "../platform/format/money.ts";
import { UUID_PATTERN } from "../platform/format/uuid.ts";
import {
  findPaymentLink,
  findPaymentLinkBySlug,
  insertPaymentLink,
  listPaymentLinks,
  type PaymentLinkChange,
  type PaymentLinkRow,
  updatePaymentLink,
} from "./store.ts";

/** The bounds of a customer's own amount when the link names none (cents). */
export const DEFAULT_MIN_AMOUNT = 100;
export const DEFAULT_MAX_AMOUNT = 99_999_999;

export interface NewLinkInput {
  name: string;
  currency: string;
  amount?: number | undefined;
  minAmount?: number | undefined;
  maxAmount?: number | undefined;
  description?: string | undefined;
  successUrl?: string | undefined;
  metadata?: Record<string, string | number | boolean | null> | undefined;
}

/** What the customer typed on the link's page, as posted. */
export interface LinkForm {
  amount?: string | undefined;
  email?: string | undefined;
  /** One per page shown: a second press of the button gets the same payment. */
  key?: string | undefined;
}

/** Why a customer's form was refused, field by field, in words for the page. */
export class LinkFormError extends Error {
  constructor(readonly fields: { amount?: string; email?: string }) {
    super(Object.values(fields).join(" "));
  }
}

export type LinkPayAnswer =
  | { kind: "checkout"; url: string }
  | { kind: "not_found" }
  | { kind: "inactive"; link: PaymentLinkRow };

const SLUG_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
const FORM_KEY_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
/** C0 or DEL: no address holds one, and a mail library may drop it, sending to another address. */
export const hasControlCharacter = (text: string): boolean =>
  [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);

// A pragmatic address check: one @, something on each side, a dot in the domain, no spaces.
const EMAIL_PATTERN = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
const DECIMALS_IN_WORDS = ["no", "one", "two", "three"];

/** The customer's amount in minor units, or why it cannot be one. */
export function parseAmount(raw: string | undefined, link: PaymentLinkRow): number | string {
  const min = link.min_amount ?? DEFAULT_MIN_AMOUNT;
  const max = link.max_amount ?? DEFAULT_MAX_AMOUNT;
  const range = `between ${majorUnits(min, link.currency)} and ${majorUnits(max, link.currency)} ${link.currency.toUpperCase()}`;
  const example = majorUnits(1250, link.currency);
  const reading = readAmount(raw ?? "", link.currency);
  if ("minor" in reading) {
    return reading.minor < min || reading.minor > max ? `Enter an amount ${range}.` : reading.minor;
  }
  switch (reading.problem) {
    case "empty":
    case "negative":
      return `Enter an amount ${range}.`;
    case "decimal-comma":
      return `Use a dot for cents, e.g. ${(raw ?? "").trim().replace(",", ".")}.`;
    case "too-many-decimals": {
      const decimals = exponentOf(link.currency);
      return decimals === 0
        ? `Enter a whole amount, e.g. ${example}.`
        : `Use at most ${DECIMALS_IN_WORDS[decimals] ?? decimals} decimals, e.g. ${example}.`;
    }
    case "not-a-number":
      return `Enter the amount as a number, e.g. ${example} (${range}).`;
  }
}

/**
 * Reusable payment links: made without code, paid by anyone who opens them (docs/api.md,
 * "Payment links").
 */
export class PaymentLinks {
  constructor(
    private readonly db: Database,
    private readonly safeSites: ActiveSafeSites,
    private readonly creation: PaymentCreation,
    private readonly queries: PaymentQueries,
  ) {}

  /** A new link; `audit` names who made it, written in the same transaction. */
  async create(groupId: string, input: NewLinkInput, audit?: Audit<string>): Promise<PaymentLinkRow> {
    const fixed = input.amount !== undefined;
    if (fixed && (input.minAmount !== undefined || input.maxAmount !== undefined)) {
      throw new DomainError(
        "INVALID_REQUEST",
        "amount fixes the price: give it alone, or minAmount and maxAmount for the customer's choice",
      );
    }
    const minAmount = fixed ? null : (input.minAmount ?? DEFAULT_MIN_AMOUNT);
    const maxAmount = fixed ? null : (input.maxAmount ?? DEFAULT_MAX_AMOUNT);
    if (minAmount !== null && maxAmount !== null && minAmount > maxAmount) {
      throw new DomainError("INVALID_REQUEST", "minAmount must not be more than maxAmount");
    }
    const site = await this.safeSites.choose(groupId, 0);
    if (!site) {
      throw new DomainError("NO_ACTIVE_SAFESITE", "This group has no active SafeSite to host the link");
    }
    const id = randomUUID();
    await withAudit(this.db, audit, async (q) => {
      await insertPaymentLink(q, {
        id,
        group_id: groupId,
        slug: randomBytes(16).toString("base64url"),
        site_url: site.url,
        name: input.name,
        currency: input.currency.toLowerCase() as Currency,
        amount: input.amount ?? null,
        min_amount: minAmount,
        max_amount: maxAmount,
        description: input.description ?? null,
        success_url: input.successUrl ?? null,
        metadata: storedMetadata(input.metadata),
      });
      return id;
    });
    return this.get(groupId, id);
  }

  async get(groupId: string, id: string): Promise<PaymentLinkRow> {
    const link = UUID_PATTERN.test(id) ? await findPaymentLink(this.db, groupId, id) : undefined;
    if (!link) throw notFound("Payment link");
    return link;
  }

  /** Newest first; `afterId` must be a link of the group (else 400, as the payments list). */
  async list(groupId: string, afterId: string | undefined, limit: number): Promise<PaymentLinkRow[]> {
    if (afterId !== undefined) {
      await this.get(groupId, afterId).catch(() => {
        throw new DomainError("INVALID_REQUEST", "after is not a cursor this API issued");
      });
    }
    // The primary's: the dashboard's list follows its own form posts, and links are few.
    return listPaymentLinks(this.db, groupId, afterId, limit);
  }

  async change(
    groupId: string,
    id: string,
    change: PaymentLinkChange,
    audit?: Audit<boolean>,
  ): Promise<PaymentLinkRow> {
    const changed =
      UUID_PATTERN.test(id) &&
      (await withAudit(this.db, audit, (q) => updatePaymentLink(q, groupId, id, change)));
    if (!changed) throw notFound("Payment link");
    return this.get(groupId, id);
  }

  /** The link behind a page address; unknown and malformed slugs alike are undefined. */
  bySlug(slug: string): Promise<PaymentLinkRow | undefined> {
    return SLUG_PATTERN.test(slug) ? findPaymentLinkBySlug(this.db, slug) : Promise.resolve(undefined);
  }

  /**
   * The customer's form: a payment through the normal create path (routing included), and the
   * processor's checkout page to send them to. A refused field throws LinkFormError; nothing is
   * created then.
   */
  async pay(slug: string, form: LinkForm): Promise<LinkPayAnswer> {
    const link = await this.bySlug(slug);
    if (!link) return { kind: "not_found" };
    if (!link.active) return { kind: "inactive", link };
    const amount = link.amount ?? parseAmount(form.amount, link);
    const email = (form.email ?? "").trim();
    const fields: { amount?: string; email?: string } = {};
    if (typeof amount === "string") fields.amount = amount;
    if (!EMAIL_PATTERN.test(email) || email.length > 255 || hasControlCharacter(email)) {
      fields.email = "Enter your e-mail address, e.g. name@example.com.";
    }
    if (fields.amount || fields.email || typeof amount === "string") throw new LinkFormError(fields);
    const page = linkUrl(link);
    const metadata = link.metadata as Metadata | null;
    let answer: Awaited<ReturnType<PaymentCreation["create"]>>;
    try {
      answer = await this.creation.create(
        link.group_id,
        {
          amount,
          currency: link.currency,
          customerEmail: email,
          ...(link.description !== null && { description: link.description }),
          successUrl: link.success_url ?? page,
          cancelUrl: page,
          ...(metadata && { metadata: metadata as Record<string, string | number | boolean | null> }),
        },
        form.key && FORM_KEY_PATTERN.test(form.key) ? `payment-link-${link.id}-${form.key}` : undefined,
        { paymentLinkId: link.id, toDonePage: link.success_url === null },
      );
    } catch (error) {
      // Deactivated while this payment was under way: as inactive as if it had been before.
      if (error instanceof LinkDeactivatedError)
        return { kind: "inactive", link: { ...link, active: false } };
      throw error;
    }
    const url = await this.queries.checkoutUrlOf(link.group_id, answer.result.transactionId);
    return { kind: "checkout", url };
  }
}

/** The page a link's customers open: on the SafeSite it was made on. */
export const linkUrl = (link: Pick<PaymentLinkRow, "site_url" | "slug">): string =>
  `${link.site_url}/l/${link.slug}`;
