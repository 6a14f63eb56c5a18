import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ENVIRONMENT_VARIABLES, loadConfig } from "../src/config/config.ts";
import { ConfigError } from "../src/config/values.ts";

describe("configuration", () => {
  it("starts with no settings at all: embedded database, sandbox processor, spec defaults", () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.publicUrl, "http://localhost:3000");
    assert.equal(
      config.fallbackUrl,
      undefined,
      "unset: a customer sent back lands on the payment's /done page",
    );
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.sandbox, true);
    assert.deepEqual(config.processors, ["stripe", "square"]);
    assert.equal(config.sandboxPort, 3001);
    assert.equal(config.checkoutTtlSeconds, 1800);
    assert.deepEqual(config.webhookRetryDelaysMs, [5000, 30000, 30000]);
    assert.equal(config.webhookTimeoutMs, 10000);
    assert.equal(config.rateLimitMax, 300);
    assert.equal(config.rateLimitWindowSeconds, 60);
  });

  it("reads decimal retry delays, host lists and URLs without a trailing slash", () => {
    const config = loadConfig({
      WEBHOOK_RETRY_DELAYS: "0.05, 1.5",
      ALLOWED_PRIVATE_HOSTS: " 127.0.0.1:8080 ,Localhost,",
      PUBLIC_URL: "https://pay.example.com/",
      PORT: "8080",
    });
    assert.deepEqual(config.webhookRetryDelaysMs, [50, 1500]);
    assert.deepEqual(config.allowedPrivateHosts, ["127.0.0.1:8080", "localhost"]);
    assert.equal(config.publicUrl, "https://pay.example.com");
    assert.equal(config.sandboxPort, 8081);
  });

  it("refuses a short ADMIN_TOKEN where real money moves, and allows it in the sandbox", () => {
    const stripe = {
      PROCESSOR: "stripe",
      STRIPE_SECRET_KEY: "sk_live_x",
      STRIPE_WEBHOOK_SECRET: "whsec_x",
      SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
    };
    assert.throws(
      () => loadConfig({ ...stripe, ADMIN_TOKEN: "admin" }),
      (error: Error) => /ADMIN_TOKEN.*at least 24/.test(error.message) && !error.message.includes('"admin"'),
    );
    assert.equal(loadConfig({ ...stripe, ADMIN_TOKEN: "a".repeat(24) }).adminToken, "a".repeat(24));
    assert.equal(loadConfig({ ADMIN_TOKEN: "admin" }).adminToken, "admin");
  });

  it("reads TRUST_PROXY as off, true, a hop count or the proxies' addresses", () => {
    assert.equal(loadConfig({}).trustProxy, false);
    // "true" is the nearest proxy only: believing every hop would let a client pick its own address.
    assert.equal(loadConfig({ TRUST_PROXY: "true" }).trustProxy, 1);
    assert.equal(loadConfig({ TRUST_PROXY: "1" }).trustProxy, 1);
    assert.equal(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 127.0.0.1" }).trustProxy, "10.0.0.0/8, 127.0.0.1");
  });

  it("keeps customers until PII_RETENTION_DAYS, events 90 days, audit entries 400; a bad value stops the start naming it", () => {
    const config = loadConfig({});
    assert.deepEqual(
      [config.piiRetentionDays, config.eventRetentionDays, config.auditRetentionDays],
      [0, 90, 400],
    );
    assert.equal(loadConfig({ PII_RETENTION_DAYS: "365" }).piiRetentionDays, 365);
    for (const name of ["PII_RETENTION_DAYS", "EVENT_RETENTION_DAYS", "AUDIT_RETENTION_DAYS"]) {
      for (const value of ["-1", "1.5", "ten"]) {
        assert.throws(
          () => loadConfig({ [name]: value }),
          (error: Error) =>
            error instanceof ConfigError && error.message.startsWith(name) && !error.message.includes("\n"),
          `${name}=${value}`,
        );
      }
    }
  });

  it("runs both roles unless SERVICE_ROLES says otherwise", () => {
    assert.deepEqual(loadConfig({}).serviceRoles, ["api", "workers"]);
    assert.deepEqual(loadConfig({ SERVICE_ROLES: "workers, api" }).serviceRoles, ["api", "workers"]);
    assert.deepEqual(loadConfig({ SERVICE_ROLES: "api" }).serviceRoles, ["api"]);
  });

  it("reads PROCESSOR as a list whose order is the default route, and each processor's settings", () => {
    const live = {
      STRIPE_SECRET_KEY: "sk_live_x",
      STRIPE_WEBHOOK_SECRET: "whsec_x",
      SQUARE_ACCESS_TOKEN: "EAAA_x",
      SQUARE_LOCATION_ID: "L1",
      SQUARE_WEBHOOK_SIGNATURE_KEY: "key",
      SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
      PUBLIC_URL: "https://pay.example.com",
    };
    const both = loadConfig({ ...live, PROCESSOR: "square, stripe" });
    assert.equal(both.sandbox, false);
    assert.deepEqual(both.processors, ["square", "stripe"]);
    assert.equal(
      both.processorSettings.square?.SQUARE_WEBHOOK_URL,
      "https://pay.example.com/processor/webhooks/square",
    );
    assert.equal(
      both.processorSettings.square?.SQUARE_API_URL,
      undefined,
      "the adapter's default: Square's production API",
    );
    assert.deepEqual(loadConfig({ ...live, PROCESSOR: "square" }).processors, ["square"]);
    assert.equal(loadConfig({}).processorCreateTimeoutMs, 8000);
    assert.equal(loadConfig({}).processorBreakerFailures, 5);
    assert.equal(loadConfig({}).processorBreakerMs, 30_000);
  });

  it("reads the pool mode and the direct LISTEN connection", () => {
    assert.equal(loadConfig({}).databasePoolMode, "session");
    const pooled = loadConfig({
      DATABASE_URL: "postgres://checkout@pgbouncer:6432/checkout",
      DATABASE_POOL_MODE: "transaction",
      DATABASE_LISTEN_URL: "postgres://checkout@primary:5432/checkout",
    });
    assert.equal(pooled.databasePoolMode, "transaction");
    assert.equal(pooled.databaseListenUrl, "postgres://checkout@primary:5432/checkout");
    assert.equal(loadConfig({}).databaseReadUrl, undefined);
    assert.equal(loadConfig({}).databaseReadMaxLagMs, 5000);
    const replicated = loadConfig({
      DATABASE_READ_URL: "postgres://checkout@replica:5432/checkout",
      DATABASE_READ_MAX_LAG_MS: "250",
    });
    assert.equal(replicated.databaseReadUrl, "postgres://checkout@replica:5432/checkout");
    assert.equal(replicated.databaseReadMaxLagMs, 250);
  });

  it("refuses bad values with a message naming the variable", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: "eighty" }, /PORT/],
      [{ PORT: "70000" }, /PORT/],
      [{ PUBLIC_URL: "ftp://x" }, /PUBLIC_URL/],
      [{ PROCESSOR: "paypal" }, /PROCESSOR/],
      [{ PROCESSOR: "stripe" }, /STRIPE_SECRET_KEY/],
      [{ PROCESSOR: "stripe,stripe" }, /PROCESSOR/],
      [{ PROCESSOR: "stripe,sandbox" }, /PROCESSOR/],
      [
        { PROCESSOR: "stripe,square", STRIPE_SECRET_KEY: "sk", STRIPE_WEBHOOK_SECRET: "wh" },
        /PROCESSOR=stripe,square needs SQUARE_ACCESS_TOKEN/,
      ],
      [{ PROCESSOR_CREATE_TIMEOUT_MS: "20000" }, /PROCESSOR_CREATE_TIMEOUT_MS/],
      [{ DATABASE_POOL_MODE: "statement" }, /DATABASE_POOL_MODE/],
      [{ DATABASE_LISTEN_URL: "redis://x" }, /DATABASE_LISTEN_URL is not valid/],
      [{ DATABASE_READ_URL: "mysql://x" }, /DATABASE_READ_URL is not valid/],
      [{ DATABASE_READ_MAX_LAG_MS: "soon" }, /DATABASE_READ_MAX_LAG_MS/],
      [{ WEBHOOK_RETRY_DELAYS: "5,soon" }, /WEBHOOK_RETRY_DELAYS/],
      [{ CHECKOUT_TTL_SECONDS: "0" }, /CHECKOUT_TTL_SECONDS/],
      [{ TRUST_PROXY: "yes please" }, /TRUST_PROXY/],
      [{ SERVICE_ROLES: "api,cron" }, /SERVICE_ROLES="api,cron" .*"api" and "workers"/],
      [{ SERVICE_ROLES: "workers" }, /SERVICE_ROLES="workers" .*PROCESSOR=sandbox/],
      [
        {
          PROCESSOR: "stripe",
          STRIPE_SECRET_KEY: "sk",
          STRIPE_WEBHOOK_SECRET: "wh",
          SECRETS_KEY: Buffer.alloc(32, 4).toString("base64"),
          ADMIN_TOKEN: "adm_0123456789abcdefghijklmnopqrstuv",
          MAIL_DIR: "/tmp/mail",
        },
        /MAIL_DIR is for trying the service in sandbox mode/,
      ],
      [{ MAIL_DIR: "/tmp/mail", SMTP_URL: "smtp://localhost:25" }, /MAIL_DIR and SMTP_URL are both set/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && message.test(error.message),
      );
    }
  });
});

describe("the list of environment variables", () => {
  it("is exactly what loadConfig reads", () => {
    const read = new Set<string>();
    const recording = new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => {
        if (typeof name === "string") read.add(name);
        return undefined;
      },
    });
    loadConfig(recording);
    // Variables read only in some modes (PROCESSOR=stripe) are read through the same getters.
    for (const name of ENVIRONMENT_VARIABLES) assert.ok(read.has(name), `${name} is listed but never read`);
    for (const name of read)
      assert.ok(ENVIRONMENT_VARIABLES.includes(name as never), `${name} is read but not listed`);
  });
});
