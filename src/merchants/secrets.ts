import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const newPublicKey = (): string => `pk_${randomBytes(18).toString("base64url")}`;
export const newSecretKey = (): string => `sk_${randomBytes(32).toString("base64url")}`;
/** Standard Webhooks secrets are `whsec_` followed by base64 key bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;
export const newAdminToken = (): string => `adm_${randomBytes(32).toString("base64url")}`;

export function hashSecret(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

/** Compares digests of equal length, so timing reveals nothing about the secret. */
export function secretMatches(candidate: string, storedHash: Buffer): boolean {
  const candidateHash = hashSecret(candidate);
  return candidateHash.length === storedHash.length && timingSafeEqual(candidateHash, storedHash);
}
