import { money } from "../platform/format/money.ts";
import { utcToTheSecond } from "../platform/format/time.ts";

type Fields = Record<string, unknown>;

/** What a list shows as its table's columns, in order; every field is in --json. */
export interface PrintOptions {
  columns?: readonly string[];
  /** What an empty list says, e.g. "No failed deliveries." */
  empty?: string;
}

/** Prints an answer: as JSON with --json, else as `forPeople` writes it. */
export function print(data: unknown, json: boolean, options: PrintOptions = {}): void {
  process.stdout.write(`${json ? JSON.stringify(data, null, 2) : forPeople(data, options)}\n`);
}

/**
 * An answer for people: an object as one fact a line (a list in it as a table under its name), a
 * list as a table; times to the second in UTC, amounts in their currency, nothing as "—".
 */
export function forPeople(data: unknown, options: PrintOptions = {}): string {
  if (Array.isArray(data))
    return data.length === 0 && options.empty ? options.empty : rows(data, options.columns);
  if (!isFields(data)) return String(data);
  const lines: [string, string][] = [];
  const lists: string[] = [];
  const walk = (fields: Fields, prefix: string) => {
    for (const [key, value] of Object.entries(fields)) {
      const name = prefix ? `${prefix} ${key}` : key;
      if (Array.isArray(value) && value.some(isFields)) lists.push(`${label(name)}:\n${rows(value)}`);
      else if (isFields(value)) walk(value, name);
      else lines.push([label(name), cell(key, value, fields)]);
    }
  };
  walk(data, "");
  return [facts(lines), ...lists].filter(Boolean).join("\n\n");
}

/** Names and values in two aligned columns. */
export function facts(lines: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...lines.map(([name]) => name.length));
  return lines.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join("\n");
}

/** Rows under a header, each column as wide as its widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

function rows(items: readonly unknown[], columns?: readonly string[]): string {
  if (items.length === 0) return "(none)";
  if (!items.every(isFields)) return items.map((item) => cell("", item, {})).join("\n");
  const keys = columns ?? [...new Set(items.flatMap((item) => Object.keys(item)))];
  return table(
    keys.map((key) => label(key).toUpperCase()),
    items.map((item) => keys.map((key) => cell(key, item[key], item))),
  );
}

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** One value as people read it: "—" for nothing, times in UTC, amounts beside a currency as money. */
function cell(key: string, value: unknown, fields: Fields): string {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "number" && /amount/i.test(key) && typeof fields.currency === "string") {
    return money(value, fields.currency);
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string" && ISO_TIME.test(value)) return utcToTheSecond(value);
  if (Array.isArray(value)) return value.map((item) => cell("", item, {})).join(", ") || "none";
  if (isFields(value)) return JSON.stringify(value);
  return String(value);
}

/** "groupId" → "Group ID", "previousSecretValidUntil" → "Previous secret valid until". */
function label(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/\b(id|url)\b/g, (word) => word.toUpperCase());
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const isFields = (value: unknown): value is Fields =>
  value !== null && typeof value === "object" && !Array.isArray(value);
