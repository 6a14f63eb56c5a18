/** Prints an answer: as JSON with --json, else as indented `key: value` lines. */
export function print(data: unknown, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    return;
  }
  const lines: string[] = [];
  const walk = (value: unknown, indent: string) => {
    if (Array.isArray(value)) {
      if (value.length === 0) lines.push(`${indent}(none)`);
      value.forEach((item, index) => {
        lines.push(`${indent}- #${index + 1}`);
        walk(item, `${indent}  `);
      });
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (item && typeof item === "object") {
          lines.push(`${indent}${key}:`);
          walk(item, `${indent}  `);
        } else {
          lines.push(`${indent}${key}: ${String(item)}`);
        }
      }
    } else {
      lines.push(`${indent}${String(value)}`);
    }
  };
  walk(data, "");
  process.stdout.write(`${lines.join("\n")}\n`);
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
