import type { FastifySchemaValidationError } from "fastify";

/** Each pattern's rule as a person reads it ("must be usd or cad"), by the pattern's source. */
const PATTERN_RULES = new Map<string, string>();

/**
 * A schema's `pattern`, with the rule it stands for: a request that breaks it is told the rule,
 * never the regular expression.
 */
export function describedPattern<const P extends string>(pattern: P, rule: string): P {
  PATTERN_RULES.set(pattern, rule);
  return pattern;
}

/** The rule a pattern stands for, or undefined for one nobody described. */
export const ruleOfPattern = (pattern: string): string | undefined => PATTERN_RULES.get(pattern);

const FORMATS: Record<string, string> = {
  email: "must be an e-mail address",
  "date-time": "must be a date and time in ISO 8601, such as 2026-11-01T09:00:00Z",
};

const TYPES: Record<string, string> = {
  string: "text",
  integer: "a whole number",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  null: "null",
};

/** "a, b or c" */
function either(values: readonly unknown[]): string {
  const words = values.map((value) => (typeof value === "string" ? value : JSON.stringify(value)));
  return words.length < 2 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** Every `amount` of the API is in minor units: "19.99" is told what to send instead. */
const AMOUNT_TYPE_RULE = "must be a whole number of cents (minor units): 1999 for 19.99";

function ruleOf(issue: FastifySchemaValidationError, field: string): string {
  const params = issue.params as Record<string, unknown>;
  const limit = Number(params.limit);
  switch (issue.keyword) {
    case "required":
      return "is required";
    case "type": {
      if (params.type === "integer" && /(^|\.)amount$/.test(field)) return AMOUNT_TYPE_RULE;
      const types = String(params.type).split(",");
      return `must be ${either(types.map((type) => TYPES[type] ?? type))}`;
    }
    case "enum":
      return `must be ${either(params.allowedValues as unknown[])}`;
    case "minimum":
      return `must be at least ${limit}`;
    case "maximum":
      return `must be at most ${limit}`;
    case "minLength":
      return limit === 1 ? "must not be empty" : `must be at least ${plural(limit, "character")} long`;
    case "maxLength":
      return `must be at most ${plural(limit, "character")} long`;
    case "maxItems":
      return `must hold at most ${plural(limit, "item")}`;
    case "minProperties":
      return `must name at least ${limit === 1 ? "one field" : plural(limit, "field")}`;
    case "maxProperties":
      return `must have at most ${plural(limit, "key")}`;
    case "format":
      return FORMATS[String(params.format)] ?? `must be a valid ${String(params.format)}`;
    case "pattern":
      return ruleOfPattern(String(params.pattern)) ?? "is not in the expected form";
    default:
      return "is not valid";
  }
}

const CONTEXT_NAMES: Record<string, string> = {
  body: "the request body",
  querystring: "the query string",
  headers: "the headers",
  params: "the path",
};

/** Where the issue is: `safeSites.0.url`, a missing field's name, or the whole body. */
function fieldOf(issue: FastifySchemaValidationError): string {
  const params = issue.params as Record<string, unknown>;
  const path = issue.instancePath.replace(/^\//, "").replaceAll("/", ".");
  const missing = params.missingProperty;
  if (typeof missing === "string") return path ? `${path}.${missing}` : missing;
  return path;
}

export interface ValidationProblem {
  field: string;
  message: string;
}

/**
 * One sentence per field, naming the rule it broke: "currency must be usd or cad", "amount is
 * required", "metadata keys must be at most 100 characters long".
 */
export function describeValidation(
  issues: readonly FastifySchemaValidationError[],
  context: string | undefined,
): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  for (const issue of issues) {
    // A key of an object broke its rule: ajv reports the rule with the key, then `propertyNames`.
    const propertyName = (issue as { propertyName?: string }).propertyName;
    if (issue.keyword === "propertyNames") continue;
    const field = fieldOf(issue);
    const subject = propertyName
      ? `${field} keys`
      : field || CONTEXT_NAMES[context ?? "body"] || "the request";
    const message = `${subject} ${ruleOf(issue, field)}`;
    if (!problems.some((problem) => problem.message === message)) problems.push({ field, message });
  }
  return problems;
}
