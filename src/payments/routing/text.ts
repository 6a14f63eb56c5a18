// Routes written as one line, as the CLI's --set and the console's form take them:
// "usd:square,stripe;stripe" (routes separated by ';', each [CURRENCY:]PROCESSOR,PROCESSOR).
import type { ProcessorRoute } from "./service.ts";

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

/** The same line for routes as they are stored. */
export const routesAsText = (routes: readonly ProcessorRoute[]): string =>
  routes
    .map((route) => `${route.currency ? `${route.currency}:` : ""}${route.processors.join(",")}`)
    .join(";");
