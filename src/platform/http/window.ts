import { ApiError } from "./errors.ts";

/** A time from the query or body: valid ISO 8601 within what the database stores. */
export function storableTime(value: string, name: string): Date {
  const time = new Date(value);
  // Valid ISO 8601 can still be outside what the database stores (year 0000).
  if (Number.isNaN(time.getTime()) || time.getUTCFullYear() < 1970 || time.getUTCFullYear() > 9999) {
    throw new ApiError("INVALID_REQUEST", `${name} must be an ISO 8601 timestamp from 1970 on`);
  }
  return time;
}

export const recoverBodySchema = {
  type: "object",
  required: ["since"],
  properties: {
    since: { type: "string", format: "date-time" },
    until: { type: "string", format: "date-time" },
  },
} as const;

/**
 * The same window from a page's datetime-local inputs, read as UTC (the forms say so); null when
 * it is not one (the page explains, rather than answering an error).
 */
export function recoveryWindowFromForm(form: { since: string; until?: string | undefined }) {
  try {
    return recoveryWindow({
      since: `${form.since}:00Z`,
      until: form.until ? `${form.until}:00Z` : undefined,
    });
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/** [since, until): until defaults to now, and must come after since. */
export function recoveryWindow(body: { since: string; until?: string | undefined }): {
  since: Date;
  until: Date;
} {
  const since = storableTime(body.since, "since");
  const until = body.until === undefined ? new Date() : storableTime(body.until, "until");
  if (until <= since) throw new ApiError("INVALID_REQUEST", "until must come after since");
  return { since, until };
}
