// A QR code drawn on the server as SVG rectangles: no script, no image request, no outside
// service. One path per row keeps the markup small.
import { createRequire } from "node:module";
import type QRCodeModule from "qrcode";
import { html } from "./html.ts";

// Loaded by the first two-factor enrolment page, not at start: sixty modules most starts (every
// CLI command, every test process) would load for nothing.
const require = createRequire(import.meta.url);
let QRCode: typeof QRCodeModule | undefined;

const QUIET_ZONE = 4;
const MODULE = 4;

export function qrCode(text: string, label: string) {
  QRCode ??= require("qrcode") as typeof QRCodeModule;
  const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" });
  const size = modules.size + 2 * QUIET_ZONE;
  const rows: string[] = [];
  for (let y = 0; y < modules.size; y++) {
    let path = "";
    for (let x = 0; x < modules.size; x++) {
      if (modules.get(x, y)) path += `M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`;
    }
    if (path) rows.push(path);
  }
  return html`<svg class="qr" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="${size * MODULE}" height="${size * MODULE}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/>${rows.map((d) => html`<path d="${d}" fill="#000"/>`)}</svg>`;
}
