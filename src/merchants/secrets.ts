import { randomBytes } from "node:crypto";

export const newPublicKey = (): string => `pk_${randomBytes(18).toString("base64url")}`;
export const newSecretKey = (): string => `sk_${randomBytes(32).toString("base64url")}`;
/** Standard Webhooks secrets are `whsec_` followed by base64 key bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;
export const newAdminToken = (): string => `adm_${randomBytes(32).toString("base64url")}`;
