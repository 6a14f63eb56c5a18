import { type Audit, withAudit } from "../../platform/audit/store.ts";
import type { Database } from "../../platform/db/database.ts";
import { DomainError, notFound } from "../../platform/errors/domain-error.ts";
import { type BrandingChange, type BrandingRow, findBranding, findLogo, updateBranding } from "./store.ts";

/** The largest logo accepted, in bytes of image (docs/api.md, "Branding"). */
export const MAX_LOGO_BYTES = 204_800;

const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;
const DATA_URL = /^data:([a-zA-Z0-9.+/-]*)(;[a-zA-Z0-9=.+-]+)*;base64,([A-Za-z0-9+/]*={0,2})$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_SIGNATURE = Buffer.from([0xff, 0xd8, 0xff]);

/** What a merchant gives; each field left out stays as it is, null clears it. */
export interface BrandingInput {
  displayName?: string | null | undefined;
  brandColor?: string | null | undefined;
  /** A data URL of a PNG or JPEG image. */
  logo?: string | null | undefined;
  receipts?: boolean | undefined;
  /** Where customers' replies to receipts go. */
  replyTo?: string | null | undefined;
}

/** How a group appears to its customers: on its pages, at the processor, in receipts. */
export interface Brand {
  /** The display name, else the group's name. */
  name: string;
  /** #rrggbb, or null for the service's own. */
  color: string | null;
  /** A path on any host the service answers on, or null. */
  logoPath: string | null;
  /** Customers get e-mail receipts. */
  receipts: boolean;
}

export type BrandingView = {
  displayName: string | null;
  brandColor: string | null;
  logoUrl: string | null;
  receipts: boolean;
  replyTo: string | null;
};

/** An address in a mail header: one line, an @ with something on each side, nothing else. */
const REPLY_TO_PATTERN =
  /^[^\s@<>(),;:"\\[\]\p{Cc}]+@[^\s@<>(),;:"\\[\]\p{Cc}]+\.[^\s@<>(),;:"\\[\]\p{Cc}]+$/u;

function replyToOf(value: string | null): string | null {
  const address = value?.trim() ?? "";
  if (address === "") return null;
  if (address.length > 254 || !REPLY_TO_PATTERN.test(address)) {
    throw new DomainError("INVALID_REQUEST", "replyTo must be an e-mail address, e.g. help@shop.example");
  }
  return address;
}

/** The image type of `bytes`, judged by the bytes alone: whatever a data URL claims is ignored. */
export function imageTypeOf(bytes: Buffer): "image/png" | "image/jpeg" | null {
  if (bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) return "image/png";
  if (bytes.subarray(0, JPEG_SIGNATURE.length).equals(JPEG_SIGNATURE)) return "image/jpeg";
  return null;
}

const logoPathOf = (groupId: string, row: BrandingRow) =>
  row.logo_digest ? `/branding/logos/${groupId}?v=${row.logo_digest}` : null;

/** A group's branding (docs/api.md, "Branding"). */
export class Branding {
  constructor(
    private readonly db: Database,
    private readonly publicUrl: string,
    /** Whether receipts can be sent at all: SMTP_URL, or MAIL_DIR beside the sandbox processor. */
    private readonly canMail: boolean,
  ) {}

  async get(groupId: string): Promise<BrandingView> {
    const row = await this.row(groupId);
    const path = logoPathOf(groupId, row);
    return {
      displayName: row.display_name,
      brandColor: row.brand_color,
      logoUrl: path && `${this.publicUrl}${path}`,
      receipts: row.receipts,
      replyTo: row.reply_to,
    };
  }

  async brand(groupId: string): Promise<Brand> {
    const row = await this.row(groupId);
    return {
      name: row.display_name ?? row.name,
      color: row.brand_color,
      logoPath: logoPathOf(groupId, row),
      receipts: row.receipts && this.canMail,
    };
  }

  /** Merges the given fields; a refused field changes nothing. */
  async change(groupId: string, input: BrandingInput, audit?: Audit<void>): Promise<BrandingView> {
    const change: BrandingChange = {};
    if (input.displayName !== undefined) {
      const name = input.displayName?.trim() ?? null;
      change.displayName = name === "" ? null : name;
    }
    if (input.brandColor !== undefined) {
      if (input.brandColor !== null && !COLOR_PATTERN.test(input.brandColor)) {
        throw new DomainError("INVALID_REQUEST", "brandColor must be a colour as #rrggbb, e.g. #1a7f5a");
      }
      change.brandColor = input.brandColor?.toLowerCase() ?? null;
    }
    if (input.logo !== undefined) change.logo = input.logo === null ? null : this.logoOf(input.logo);
    if (input.receipts !== undefined) {
      if (input.receipts && !this.canMail) {
        throw new DomainError(
          "INVALID_REQUEST",
          "receipts need e-mail: this installation has no SMTP_URL (nor, with the sandbox processor, MAIL_DIR), so no receipt could be sent",
        );
      }
      change.receipts = input.receipts;
    }
    if (input.replyTo !== undefined) change.replyTo = replyToOf(input.replyTo);
    await this.row(groupId);
    await withAudit(this.db, audit, (q) => updateBranding(q, groupId, change));
    return this.get(groupId);
  }

  /** The logo's bytes and type, for GET /branding/logos/:groupId. */
  logo(groupId: string): Promise<{ logo: Buffer; logo_type: string } | undefined> {
    return findLogo(this.db, groupId);
  }

  private logoOf(dataUrl: string): { bytes: Buffer; type: "image/png" | "image/jpeg" } {
    const match = DATA_URL.exec(dataUrl);
    if (!match) {
      throw new DomainError(
        "INVALID_REQUEST",
        "logo must be a data URL of a PNG or JPEG image (data:image/png;base64,…)",
      );
    }
    const bytes = Buffer.from(match[3] ?? "", "base64");
    if (bytes.length > MAX_LOGO_BYTES) {
      throw new DomainError("INVALID_REQUEST", `logo must be at most ${MAX_LOGO_BYTES} bytes of image`);
    }
    const type = imageTypeOf(bytes);
    if (!type) {
      throw new DomainError(
        "INVALID_REQUEST",
        "logo must be a PNG or JPEG image: its bytes are neither (SVG is not accepted)",
      );
    }
    return { bytes, type };
  }

  private async row(groupId: string): Promise<BrandingRow> {
    const row = await findBranding(this.db, groupId);
    if (!row) throw notFound("Group");
    return row;
  }
}
