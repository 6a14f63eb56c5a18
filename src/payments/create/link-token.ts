import { randomFillSync } from "node:crypto";

const TOKEN_BYTES = 24;
const TOKENS_PER_FILL = 128;
const pool = Buffer.allocUnsafeSlow(TOKEN_BYTES * TOKENS_PER_FILL);
let nextToken = TOKENS_PER_FILL;

/**
 * A hosted payment link's secret: 24 bytes (192 bits) from the CSPRNG, base64url. Drawn from a
 * pool filled 128 tokens at a time, as node's own randomUUID does: one call into the CSPRNG per
 * create was 2 % of a create's CPU (docs/performance.md). Each byte is handed out once.
 */
export function newLinkToken(): string {
  if (nextToken === TOKENS_PER_FILL) {
    randomFillSync(pool);
    nextToken = 0;
  }
  const start = nextToken++ * TOKEN_BYTES;
  return pool.toString("base64url", start, start + TOKEN_BYTES);
}
