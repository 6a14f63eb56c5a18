/** Route-schema pieces every API module shares: envelopes, error answers, ids. */
import { UUID_PATTERN_SOURCE } from "../format/uuid.ts";
import { describedPattern } from "./validation-messages.ts";

// Every schema that takes an id says this when it is not one.
describedPattern(UUID_PATTERN_SOURCE, "must be an id (a UUID)");
/** An id, or nothing: a form's or a filter's field left empty. */
export const OPTIONAL_UUID_PATTERN = describedPattern(
  `^(${UUID_PATTERN_SOURCE.slice(1, -1)})?$`,
  "must be an id (a UUID), or left empty",
);

const ID_SUFFIX = " ID";

/** A page size in a query string (a string there): 1 to 100. */
export const PAGE_LIMIT_PATTERN = describedPattern(
  "^(100|[1-9][0-9]?)$",
  "must be a whole number from 1 to 100",
);

/** A listing's page fields in the query: how many, and after which item (keyset). */
export const PAGE_QUERY_PROPERTIES = {
  // A string, checked here: a query string has no numbers, and `limit=abc` must be a 400.
  limit: { type: "string", pattern: PAGE_LIMIT_PATTERN, description: "1 to 100; 20 when left out" },
  after: {
    type: "string",
    pattern: UUID_PATTERN_SOURCE,
    description: "The nextCursor of the previous page",
  },
} as const;

/** A listing's page: its items under `name`, whether more follow, and the cursor to ask for them. */
export const pageSchema = <const N extends string, const S>(name: N, items: S) =>
  ({
    type: "object",
    required: [name, "hasMore", "nextCursor"],
    properties: {
      [name]: { type: "array", items },
      hasMore: { type: "boolean" },
      nextCursor: { type: ["string", "null"] },
    } as { [K in N]: { type: "array"; items: S } } & {
      hasMore: { type: "boolean" };
      nextCursor: { type: ["string", "null"] };
    },
  }) as const;

/** A numeric id (a bigint key) as text: a path segment or a form field. */
export const NUMERIC_ID_PATTERN = describedPattern("^[0-9]{1,18}$", "must be a whole number");

/**
 * A path id naming a `resource`. A malformed one fails validation in the `params` context, which
 * the error handler answers as 404 "<resource> not found": an id that cannot exist is simply not
 * found (docs/api.md, "Conventions"), with the same body as an unknown one.
 */
export const uuidParam = <const R extends string>(resource: R) =>
  ({ type: "string", pattern: UUID_PATTERN_SOURCE, description: `${resource}${ID_SUFFIX}` }) as const;

/** The resource a path parameter names, read back from its schema description. */
export function resourceOfParam(paramsSchema: unknown, param: string): string {
  const properties = (paramsSchema as { properties?: Record<string, { description?: string }> } | undefined)
    ?.properties;
  const description = properties?.[param]?.description ?? "";
  return description.endsWith(ID_SUFFIX) ? description.slice(0, -ID_SUFFIX.length) : "Resource";
}

export const merchantSecurity = [{ publicKey: [], secretKey: [] }];
export const adminSecurity = [{ adminToken: [] }];

export function successEnvelope<const T extends object>(data: T) {
  return {
    type: "object",
    required: ["success", "data"],
    properties: { success: { type: "boolean", const: true }, data },
  } as const;
}

export const errorResponses = {
  400: { $ref: "ErrorResponse#" },
  401: { $ref: "ErrorResponse#" },
  404: { $ref: "ErrorResponse#" },
  429: { $ref: "ErrorResponse#" },
  503: { $ref: "ErrorResponse#" },
} as const;
