import { loadConfig } from "./config/config.ts";
import { ConfigError } from "./config/values.ts";
import { securePrivateDataDir } from "./platform/db/data-dir.ts";
import { DatabaseUnavailableError } from "./platform/db/database.ts";
import { DataDirLockedError } from "./platform/db/embedded.ts";
import { openDatabase } from "./platform/db/open.ts";
import { adminTokenFile } from "./platform/settings/admin-token-file.ts";
import { tracesRequested, useTracing } from "./platform/telemetry/tracing.ts";
import { unsupportedNodeWarning, welcomeText } from "./server/welcome.ts";

async function main() {
  const nodeWarning = unsupportedNodeWarning(process.versions.node);
  if (nodeWarning) process.stderr.write(`checkout: ${nodeWarning}\n`);
  const config = loadConfig();
  securePrivateDataDir(config.dataDir);
  // The embedded database starts on its own thread while this one loads the rest of the service:
  // about a second of modules, which the thread's start used to wait behind.
  const opening = openDatabase(config);
  opening.catch(() => {}); // startService awaits it; a failure before then is not "unhandled"
  // Before the HTTP app exists: its instrumentation registers on Fastify's creation.
  const traces = tracesRequested(process.env)
    ? (await import("./platform/telemetry/otel.ts")).startTracing()
    : undefined;
  if (traces) useTracing(traces.tracing);
  const { startService } = await import("./server/lifecycle.ts");
  const service = await startService(config, { opening });
  const { merchants } = service.services;
  const adminToken = service.adminAuth.unclaimed;
  if (config.sandbox) {
    // The demo group's live keys exist only where no real money can move.
    const demo = await merchants.createDemoGroupIfEmpty(config.publicUrl);
    if (!demo && (await merchants.demoFollowsPublicUrl(config.publicUrl))) {
      service.app.log.info({ publicUrl: config.publicUrl }, "the demo group's SafeSite follows PUBLIC_URL");
    }
    // PUBLIC_URL's host; the port the listener got when PORT=0 asked for any.
    const listening = Number(new URL(service.url).port);
    const shown = new URL(config.publicUrl);
    if (shown.port === "0") shown.port = String(listening);
    const shownUrl = shown.href.replace(/\/$/, "");
    process.stdout.write(welcomeText(shownUrl, listening, config.allowedPrivateHosts, adminToken, demo));
  } else if (adminToken) {
    // Outside the sandbox stdout is a log stream (a container's, a journal's): only the file's path.
    const { path } = adminTokenFile(config.dataDir);
    service.app.log.warn({ path }, `admin token not used yet: it is in ${path} (mode 0600)`);
  }
  if (service.adminAuth.unclaimedElsewhere) {
    service.app.log.warn(
      "the generated admin token is not used yet and its file is not in this DATA_DIR: read it from " +
        "DATA_DIR/admin-token on the instance that first started, or run `checkout admin reset-token`",
    );
  }
  // Before the line that says it started: whoever reads it may signal at once, and a signal
  // with no handler yet kills the process without draining.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, "shutting down: finishing in-flight requests");
    const forced = setTimeout(() => {
      service.app.log.error("shutdown took too long; exiting");
      process.exit(1);
    }, config.shutdownGraceMs + 25_000);
    forced.unref();
    await service.close();
    await traces?.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  service.app.log.info(
    { url: service.url, sandbox: service.sandboxUrl, database: service.services.db.kind },
    "checkout service started",
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`checkout: ${error.message}\n`);
  } else if (error instanceof DatabaseUnavailableError) {
    process.stderr.write(
      `checkout: the database is not reachable (gave up after DATABASE_CONNECT_TIMEOUT_SECONDS): ${error.message}\n`,
    );
  } else {
    process.stderr.write(`checkout: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(1);
});
