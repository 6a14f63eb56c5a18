// The container files are a thin wrapper over what CI proves: the same start command, port,
// health paths and settings. This keeps them from drifting away from the code.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { ENVIRONMENT_VARIABLES, loadConfig } from "../src/config/config.ts";

// The suite runs from the repository root (and from compiled copies of the tests).
const read = (path: string) => readFile(path, "utf8");

/** Dockerfile instructions of the final stage, continuation lines joined. */
async function finalStage(): Promise<[string, string][]> {
  const text = (await read("Dockerfile")).replace(/\\\n\s*/g, " ");
  const stages = text.split(/^FROM /m);
  const last = `FROM ${stages[stages.length - 1]}`;
  return last
    .split("\n")
    .filter((line) => line.trim() && !line.trim().startsWith("#"))
    .map((line) => {
      const [instruction = "", ...rest] = line.trim().split(/\s+/);
      return [instruction.toUpperCase(), rest.join(" ")];
    });
}

const startCommand = async () =>
  (JSON.parse(await read("package.json")) as { scripts: { start: string } }).scripts.start;

describe("deployment files stay in step with the code", () => {
  it("the Dockerfile runs npm start's command on Node 24, as a non-root user, on the default port", async () => {
    const stage = await finalStage();
    const value = (name: string) =>
      stage.filter(([instruction]) => instruction === name).map(([, rest]) => rest);
    assert.match(value("FROM")[0] ?? "", /^node:24-slim$/);
    assert.deepEqual(JSON.parse(value("CMD")[0] ?? "[]").join(" "), await startCommand());
    assert.equal(Number(value("EXPOSE")[0]), loadConfig({}).port);
    assert.equal(value("USER")[0], "node");
    assert.match(value("HEALTHCHECK")[0] ?? "", /\/health\/live/);
    assert.match(value("RUN").join(" "), /npm ci --omit=dev/);
    const env = Object.fromEntries(
      [
        ...value("ENV")
          .join(" ")
          .matchAll(/([A-Z_]+)=(\S+)/g),
      ].map((match) => [match[1], match[2]]),
    );
    assert.equal(env.HOST, "0.0.0.0");
    for (const name of Object.keys(env).filter((name) => name !== "NODE_ENV")) {
      assert.ok(ENVIRONMENT_VARIABLES.includes(name as never), `Dockerfile sets unknown ${name}`);
    }
  });

  it("names one runtime everywhere: Node 24 to build, test and ship on, 22 supported, 20 not", async () => {
    assert.equal((await read(".nvmrc")).trim(), "24");
    for (const path of ["package.json", "packages/client/package.json", "examples/shop/package.json"]) {
      assert.equal(JSON.parse(await read(path)).engines.node, ">=22", path);
    }
    assert.match(await read(".ci/run"), /node-linux-\$arch@24/, "CI runs the suite on Node 24");
  });

  /** A compose service's environment with its placeholders filled in from `env`, else their defaults. */
  const filledIn = (environment: Record<string, string>, env: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(environment).map(([key, value]) => [
        key,
        value.replace(
          /\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g,
          (_, name: string, kind?: string, rest?: string) => {
            if (env[name] !== undefined) return env[name];
            if (kind === "-") return rest ?? "";
            // A required value stands for what the operator sets: long enough wherever length is checked.
            return name === "SITE_ADDRESS"
              ? "pay.example.com"
              : name === "SECRETS_KEY"
                ? Buffer.alloc(32, 9).toString("base64")
                : "x".repeat(40);
          },
        ),
      ]),
    );
  /** The .env lines docs/deploy.md gives for Stripe. */
  const STRIPE_ENV = { STRIPE_SECRET_KEY: "sk_live_x", STRIPE_WEBHOOK_SECRET: "whsec_x" };
  type Service = {
    environment?: Record<string, string>;
    healthcheck?: { test: string[] };
    image?: string;
    build?: string;
    profiles?: string[];
  };
  const composeServices = async () =>
    (parse(await read("compose.yaml"), { merge: true }) as { services: Record<string, Service> }).services;

  it("compose runs two instances on PostgreSQL and Redis behind a proxy, with settings the service knows", async () => {
    const services = await composeServices();
    const instances = Object.entries(services).filter(([name]) => name.startsWith("checkout-"));
    assert.equal(instances.length, 2);
    assert.ok(services.postgres?.image?.startsWith("postgres:"));
    assert.ok(services.redis?.image?.startsWith("redis:"));
    for (const [name, service] of instances) {
      const environment = service.environment ?? {};
      for (const variable of Object.keys(environment)) {
        assert.ok(ENVIRONMENT_VARIABLES.includes(variable as never), `${name} sets unknown ${variable}`);
      }
      // The values, with their placeholders filled in, are accepted by the real config loader.
      const config = loadConfig(filledIn(environment, STRIPE_ENV));
      assert.equal(
        config.sandbox,
        false,
        "several instances need shared processors, not in-memory sandboxes",
      );
      assert.ok(config.databaseUrl && config.redisUrl);
      assert.equal(config.databasePoolMode, "session");
      assert.equal(config.databaseReadUrl, undefined);
      assert.deepEqual(config.serviceRoles, ["api", "workers"]);
      assert.match(
        service.healthcheck?.test.join(" ") ?? "",
        new RegExp(`127\\.0\\.0\\.1:${config.port}/health/ready`),
      );
    }
    const images = new Set(instances.map(([, service]) => service.image));
    assert.equal(images.size, 1, "every instance runs one image, built once");
    assert.match([...images][0] ?? "", /^checkout-service:/);
    const caddyfile = await read("deploy/Caddyfile");
    assert.match(caddyfile, /reverse_proxy checkout-1:3000 checkout-2:3000/);
    assert.match(caddyfile, /health_uri \/health\/ready/);
  });

  it("Square is added from .env alone, and the merchant step never puts the admin token through the host's shell", async () => {
    const services = await composeServices();
    const environment = services["checkout-1"]?.environment ?? {};
    const square = {
      ...STRIPE_ENV,
      PROCESSOR: "stripe,square",
      SQUARE_ACCESS_TOKEN: "EAAA-token",
      SQUARE_LOCATION_ID: "L1",
      SQUARE_WEBHOOK_SIGNATURE_KEY: "signature-key",
    };
    const config = loadConfig(filledIn(environment, square));
    assert.deepEqual(config.processors, ["stripe", "square"]);
    assert.throws(
      () => loadConfig(filledIn(environment, { PROCESSOR: "stripe" })),
      /STRIPE_SECRET_KEY/,
      "a processor without its settings stops the start, naming what is missing",
    );
    const deploy = await read("docs/deploy.md");
    assert.doesNotMatch(
      deploy,
      /docker compose exec[^`]*\$ADMIN_TOKEN/,
      "$ADMIN_TOKEN would expand on the host",
    );
    assert.match(deploy, /`PROCESSOR=stripe,square`/);
  });

  it("the scaled profile: API-only instances through PgBouncer, reads on the replica, one worker", async () => {
    const services = await composeServices();
    for (const name of ["worker", "pgbouncer", "postgres-replica"]) {
      assert.deepEqual(services[name]?.profiles, ["scaled"], `${name} runs only in the scaled profile`);
    }
    assert.equal(services.pgbouncer?.build, "deploy/pgbouncer");
    assert.match(await read("deploy/pgbouncer/start.sh"), /pool_mode = transaction/);
    assert.match(await read("deploy/postgres/replica.sh"), /pg_basebackup[\s\S]*--write-recovery-conf/);
    // The .env lines docs/deploy.md gives for this profile.
    const scaled = {
      CHECKOUT_DATABASE_HOST: "pgbouncer:6432",
      CHECKOUT_POOL_MODE: "transaction",
      CHECKOUT_READ_URL: "postgres://checkout:x@postgres-replica:5432/checkout",
      CHECKOUT_ROLES: "api",
    };
    const deploy = await read("docs/deploy.md");
    for (const name of ["CHECKOUT_DATABASE_HOST", "CHECKOUT_POOL_MODE", "CHECKOUT_ROLES"] as const) {
      assert.ok(deploy.includes(`${name}=${scaled[name]}`), `docs/deploy.md gives ${name}`);
    }
    assert.match(deploy, /CHECKOUT_READ_URL=postgres:\/\/checkout:\S+@postgres-replica:5432\/checkout/);
    const api = loadConfig(filledIn(services["checkout-1"]?.environment ?? {}, { ...STRIPE_ENV, ...scaled }));
    assert.equal(api.databasePoolMode, "transaction");
    assert.equal(new URL(api.databaseUrl ?? "").host, "pgbouncer:6432");
    assert.equal(new URL(api.databaseListenUrl ?? "").host, "postgres:5432", "LISTEN on the primary itself");
    assert.equal(new URL(api.databaseReadUrl ?? "").host, "postgres-replica:5432");
    assert.deepEqual(api.serviceRoles, ["api"]);
    const worker = loadConfig(filledIn(services.worker?.environment ?? {}, { ...STRIPE_ENV, ...scaled }));
    assert.deepEqual(worker.serviceRoles, ["workers"]);
    assert.equal(worker.databasePoolMode, "transaction");
  });
});
