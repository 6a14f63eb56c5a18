// Routes written as one line, as the CLI's --set takes them: routes
// separated by ';', each [CURRENCY:]PROCESSOR,PROCESSOR.
import { PROCESSOR_NAMES } from "../../processor/catalog.ts";

const [first = "", second = first] = PROCESSOR_NAMES;
/** A line that shows the form with the catalog's processors: usd to the second, then the first; the rest to the first. */
export const ROUTES_EXAMPLE = `usd:${second},${first};${first}`;

/** The routes a line names, as the routing API takes them; the service checks every name. */
export function routesFromText(text: string): { currency?: string; processors: string[] }[] {
  return text
    .split(";")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const separator = part.indexOf(":");
      const currency = separator > 0 ? part.slice(0, separator).trim() : undefined;
      const processors = part
        .slice(separator + 1)
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean);
      return { ...(currency && { currency }), processors };
    });
}
