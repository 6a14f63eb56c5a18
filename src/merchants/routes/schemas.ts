import { uuidParam } from "../../platform/http/schemas.ts";
import { describedPattern } from "../../platform/http/validation-messages.ts";

export const siteUrl = {
  type: "string",
  minLength: 8,
  maxLength: 2000,
  pattern: describedPattern(
    "^https?://[^\\s/?#]+(/[^\\s?#]*)?$",
    "must be an http or https URL with a host and, at most, a path (no query or fragment)",
  ),
} as const;

export const displayName = { type: "string", minLength: 1, maxLength: 200 } as const;

export const safeSiteInput = {
  type: "object",
  required: ["name", "url"],
  additionalProperties: false,
  properties: { name: displayName, url: siteUrl, isActive: { type: "boolean" } },
} as const;

export const groupParams = {
  type: "object",
  required: ["groupId"],
  properties: { groupId: uuidParam("Group") },
} as const;
