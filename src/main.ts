import { startService } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { DataDirLockedError } from "./db/embedded.ts";
import type { CreatedGroup } from "./merchants/service.ts";

function printWelcome(url: string, adminToken: string | undefined, demo: CreatedGroup | null) {
  // Shown once on the terminal, never written to the log stream.
  const lines = [""];
  if (adminToken) lines.push(`Admin token (shown once; set ADMIN_TOKEN to choose your own): ${adminToken}`);
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
  if (lines.length > 1) process.stdout.write(`${lines.join("\n")}\n\n`);
}

async function main() {
  const config = loadConfig();
  const service = await startService(config);
  const demo = await service.services.merchants.createDemoGroupIfEmpty(config.publicUrl);
  printWelcome(service.url, service.adminToken.generated, demo);
  service.app.log.info(
    { url: service.url, sandbox: service.sandboxUrl, database: service.services.db.kind },
    "checkout service started",
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, "shutting down: finishing in-flight requests");
    const forced = setTimeout(() => {
      service.app.log.error("shutdown took too long; exiting");
      process.exit(1);
    }, 25000);
    forced.unref();
    await service.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`checkout: ${error.message}\n`);
  } else {
    process.stderr.write(`checkout: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(1);
});
