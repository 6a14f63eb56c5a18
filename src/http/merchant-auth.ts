import type { FastifyRequest } from "fastify";
import type { Queryable } from "../db/database.ts";
import { hashSecret, secretMatches } from "../merchants/secrets.ts";
import { ApiError } from "./errors.ts";

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

const unauthorized = () => new ApiError("UNAUTHORIZED", "Missing or invalid API keys");

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" && KEY_PATTERN.test(value) ? value : undefined;
}

export async function authenticateMerchant(db: Queryable, request: FastifyRequest): Promise<Merchant> {
  const publicKey = header(request, "x-public-key");
  const secretKey = header(request, "x-secret-key");
  if (!publicKey || !secretKey) throw unauthorized();
  const [key] = await db.query<{ group_id: string; secret_hash: Buffer }>(
    "SELECT group_id, secret_hash FROM api_keys WHERE public_key = $1 AND revoked_at IS NULL",
    [publicKey],
  );
  const matches = secretMatches(secretKey, key ? Buffer.from(key.secret_hash) : DECOY_HASH);
  if (!key || !matches) throw unauthorized();
  return { groupId: key.group_id, publicKey };
}
