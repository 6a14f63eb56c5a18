// The interface's rules on metadata and description, in one place (docs/api.md, "POST /api/v1/payments/create").

export type MetadataValue = string | number | boolean | null;
export type Metadata = Record<string, unknown>;

const isReserved = (key: string) => key.startsWith("_");

/** At creation: reserved `_` keys are ours to overwrite, so the merchant's are dropped. */
export function storedMetadata(input: Record<string, MetadataValue> | undefined): Metadata | null {
  if (!input) return null;
  const kept = Object.entries(input).filter(([key]) => !isReserved(key));
  return kept.length > 0 ? Object.fromEntries(kept) : null;
}

/** The top-level description wins; a string `description` metadata key stands in for it. */
export function descriptionOf(description: string | undefined, metadata: Metadata | null): string | null {
  if (description !== undefined) return description;
  return typeof metadata?.description === "string" ? metadata.description : null;
}

/** Get Payment's metadata: no reserved keys and no `description`; null when nothing is left. */
export function visibleMetadata(metadata: Metadata | null): Metadata | null {
  if (!metadata) return null;
  const visible = Object.entries(metadata).filter(([key]) => !isReserved(key) && key !== "description");
  return visible.length > 0 ? Object.fromEntries(visible) : null;
}

/** A webhook's metadata: the merchant's keys, with the description under `description`. */
export function webhookMetadata(metadata: Metadata | null, description: string | null): Metadata {
  const result: Metadata = { ...(metadata ?? {}) };
  if (description !== null) result.description = description;
  return result;
}
