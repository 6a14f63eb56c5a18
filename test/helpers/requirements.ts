// Tests that need something a fresh machine may lack (a browser, a Redis server) skip with one
// line saying what to install. CI sets TEST_REQUIRE_ALL=1, which turns every such skip into a
// failure, so there they always run.
import { existsSync } from "node:fs";
import { connect } from "node:net";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const REDIS_TEST_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379/0";

const requireAll = process.env.TEST_REQUIRE_ALL === "1";

/** A describe/it `skip` value: false to run, or the reason; throws instead when CI requires all. */
function skipUnless(available: boolean, reason: string): false | string {
  if (available) return false;
  if (requireAll) throw new Error(`TEST_REQUIRE_ALL=1 but ${reason}`);
  process.stderr.write(`skipped: ${reason}\n`);
  return reason;
}

export const needsChromium = (): false | string =>
  skipUnless(
    existsSync(CHROMIUM_PATH),
    `no Chromium at ${CHROMIUM_PATH}: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH`,
  );

/** A program a Debian package installs (promtool, prometheus, kubectl). */
export const needsBinary = (path: string, install: string): false | string =>
  skipUnless(existsSync(path), `no ${path}: ${install}`);

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379), timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

export const needsRedis = async (): Promise<false | string> =>
  skipUnless(
    await reachable(REDIS_TEST_URL),
    `no Redis at ${REDIS_TEST_URL}: install it (Debian: apt-get install redis-server) or set TEST_REDIS_URL`,
  );

/** Headless Chromium that talks to nothing but the pages it is sent to. */
export async function launchChromium(): Promise<import("playwright-core").Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Clicks something that navigates (a form's button) and waits for the page it loads. Not
 * `waitForLoadState("load")`: on a page already loaded it resolves at once, and the next step
 * (a reload, say) would race the navigation.
 */
export async function clickAndLoad(
  page: import("playwright-core").Page,
  click: () => Promise<void>,
): Promise<void> {
  await Promise.all([page.waitForEvent("load"), click()]);
}
