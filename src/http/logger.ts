import type { FastifyServerOptions } from "fastify";

/** Secrets that may appear in request headers or logged objects; never written out. */
export const REDACTED_PATHS = [
  'req.headers["x-secret-key"]',
  "req.headers.authorization",
  'req.headers["stripe-signature"]',
  "secretKey",
  "webhookSecret",
  "adminToken",
];

export function loggerOptions(level: string): Exclude<FastifyServerOptions["logger"], boolean | undefined> {
  return { level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
}
