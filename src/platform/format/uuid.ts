/** The shape of every id the service makes (a UUID), for schemas and for checks before a lookup. */
export const UUID_PATTERN_SOURCE =
  "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
export const UUID_PATTERN = new RegExp(UUID_PATTERN_SOURCE);
