import type { FastifyServerOptions } from "fastify";
import { tracing } from "../telemetry/tracing.ts";

/**
 * Secrets that may appear in request headers or logged objects; never written out. Each processor
 * adds the headers its own events carry signatures in.
 */
const REDACTED_PATHS = [
  'req.headers["x-secret-key"]',
  "req.headers.authorization",
  "secretKey",
  "webhookSecret",
  "adminToken",
];

// Payment links and invite links: whoever holds the token can pay, or sign up as the invitee.
const LINK_PATH =
  /^\/(pay|return|dashboard\/invite|operator\/invite|dashboard\/reset|operator\/reset)\/[^/?#]+/i;

/**
 * Query parameters whose values are logged: filters, pages and windows. Any other value (a
 * search term such as the dashboard's `q`, which may be a customer's e-mail) is replaced.
 */
const LOGGED_QUERY_VALUES = new Set([
  "status",
  "limit",
  "after",
  "before",
  "from",
  "to",
  "since",
  "until",
  "kind",
  "processor",
  "group",
  "groupId",
  "format",
]);

function withoutQueryValues(query: string): string {
  return query
    .split("&")
    .map((pair) => {
      const [name = "", value] = pair.split(/=(.*)/s, 2);
      return value === undefined || LOGGED_QUERY_VALUES.has(name) ? pair : `${name}=[redacted]`;
    })
    .join("&");
}

/**
 * The URL as logged: a link's token replaced, and query values but those of filters and pages. The router decodes percent-encoding (`/%70ay/…` is
 * `/pay/…`), so the match is made on the decoded path; a path that does not decode is logged
 * only up to its first segment.
 */
export function loggedUrl(url: string): string {
  const [path = "", rawQuery] = url.split(/\?(.*)/s, 2);
  const query = rawQuery === undefined ? undefined : withoutQueryValues(rawQuery);
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return `${path.split("/").slice(0, 2).join("/")}/[undecodable]`;
  }
  if (!LINK_PATH.test(decoded)) return query === undefined ? path : `${path}?${query}`;
  const redacted = decoded.replace(LINK_PATH, (_match, prefix: string) => `/${prefix.toLowerCase()}/[token]`);
  return query === undefined ? redacted : `${redacted}?${query}`;
}

/** JSON lines for machines; on a terminal, readable lines (pino-pretty, in a worker thread). */
export function loggerOptions(
  level: string,
  /** Request headers that carry a secret or a signature (lower case). */
  hiddenHeaders: readonly string[],
  pretty = process.stdout.isTTY === true,
): Exclude<FastifyServerOptions["logger"], boolean | undefined> {
  return {
    level,
    // While traces are on, a line written inside a request names its trace and span.
    ...(tracing().on && { mixin: () => tracing().logFields() }),
    redact: {
      paths: [...REDACTED_PATHS, ...hiddenHeaders.map((header) => `req.headers[${JSON.stringify(header)}]`)],
      censor: "[redacted]",
    },
    serializers: {
      // A link's token is as good as the link: never in the log.
      req: (request: { method: string; url: string; id: string }) => ({
        method: request.method,
        url: loggedUrl(request.url),
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
