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

// Payment links and invite links: whoever holds the token can pay, or sign up as the invitee.
const LINK_PATH =
  /^\/(pay|return|dashboard\/invite|operator\/invite|dashboard\/reset|operator\/reset)\/[^/?#]+/i;

/**
 * The URL as logged: a link's token replaced. The router decodes percent-encoding (`/%70ay/…` is
 * `/pay/…`), so the match is made on the decoded path; a path that does not decode is logged
 * only up to its first segment.
 */
export function withoutLinkToken(url: string): string {
  const [path = "", query] = url.split(/\?(.*)/s, 2);
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return `${path.split("/").slice(0, 2).join("/")}/[undecodable]`;
  }
  if (!LINK_PATH.test(decoded)) return url;
  const redacted = decoded.replace(LINK_PATH, (_match, prefix: string) => `/${prefix.toLowerCase()}/[token]`);
  return query === undefined ? redacted : `${redacted}?${query}`;
}

/** JSON lines for machines; on a terminal, readable lines (pino-pretty, in a worker thread). */
export function loggerOptions(
  level: string,
  pretty = process.stdout.isTTY === true,
): Exclude<FastifyServerOptions["logger"], boolean | undefined> {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    serializers: {
      // A link's token is as good as the link: never in the log.
      req: (request: { method: string; url: string; id: string }) => ({
        method: request.method,
        url: withoutLinkToken(request.url),
        id: request.id,
      }),
    },
    ...(pretty && {
      transport: {
        target: "pino-pretty",
        options: { translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname" },
      },
    }),
  };
}
