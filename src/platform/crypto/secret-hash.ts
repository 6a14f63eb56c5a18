import { createHash, timingSafeEqual } from "node:crypto";

// Secrets (API secret keys, the admin token, the metrics token) are kept and compared as digests.

export function hashSecret(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

/** The digest as text, for tokens kept in text columns (invites, page sessions). */
export const hexDigest = (secret: string): string => hashSecret(secret).toString("hex");

/** Compares digests of equal length, so timing reveals nothing about the secret. */
export function secretMatches(candidate: string, storedHash: Buffer): boolean {
  const candidateHash = hashSecret(candidate);
  return candidateHash.length === storedHash.length && timingSafeEqual(candidateHash, storedHash);
}
