import Stripe from "stripe";
import { type Config, loadConfig } from "../../src/config/config.ts";
import type { Clock } from "../../src/platform/clock.ts";
import type { Database } from "../../src/platform/db/database.ts";
import { PROCESSOR_CATALOG } from "../../src/processor/catalog.ts";
import type { ProcessorDescriptor } from "../../src/processor/descriptor.ts";
import type { ProcessorAdapter } from "../../src/processor/port.ts";
import { type RunningService, startService } from "../../src/server/lifecycle.ts";
import type { Resolver } from "../../src/webhooks/safe-connect.ts";
import { createTestDatabase } from "./database.ts";
import { type Behaviour, Receiver } from "./receiver.ts";

export const ADMIN_TOKEN = "adm_test_token_for_the_suite";
/** Seals secrets at rest in tests (never a key file in the working tree). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers and assert on their shape.
export type Json = any;

export interface JsonResponse<T = Json> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestGroup {
  groupId: string;
  publicKey: string;
  secretKey: string;
  webhookSecret: string;
  safeSites: { id: string; name: string; url: string; isActive: boolean }[];
}

export interface TestService extends RunningService {
  config: Config;
  /** Any request to the service; JSON bodies are encoded, JSON answers decoded. */
  request(method: string, path: string, options?: RequestOptions): Promise<JsonResponse>;
  admin(method: string, path: string, body?: unknown): Promise<JsonResponse>;
  createGroup(options?: {
    name?: string;
    safeSites?: { name: string; url: string; isActive?: boolean }[];
  }): Promise<TestGroup>;
  /** A merchant API call with the group's keys. */
  api(
    group: TestGroup,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<JsonResponse>;
  createPayment(
    group: TestGroup,
    overrides?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<JsonResponse>;
  /** The official SDK pointed at the built-in sandbox, with the account's key. */
  processorClient(): Stripe;
  /** A simulation call to the built-in sandbox processor (JSON, no auth). */
  sandboxPost(path: string, body?: unknown): Promise<JsonResponse>;
  sandboxDelete(path: string): Promise<JsonResponse>;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export const validPayment = (overrides: Record<string, unknown> = {}) => ({
  amount: 1999,
  currency: "usd" as const,
  customerEmail: "jane@example.com",
  successUrl: "https://shop.example.com/thanks/{transactionId}",
  cancelUrl: "https://shop.example.com/cart",
  ...overrides,
});

/** The service as `npm start` runs it, on real listeners and a fresh database, quiet and fast. */
export async function startTestService(
  env: Record<string, string> = {},
  options: {
    processors?: ProcessorAdapter[];
    /** The processors the service knows: the catalog, unless a test brings one of its own. */
    catalog?: readonly ProcessorDescriptor[];
    workers?: boolean;
    db?: Database;
    webhookResolver?: Resolver;
    clock?: Clock;
  } = {},
): Promise<TestService> {
  const { catalog = PROCESSOR_CATALOG, ...startOptions } = options;
  const config = loadConfig(
    {
      PORT: "0",
      SANDBOX_PORT: "0",
      LOG_LEVEL: "silent",
      ADMIN_TOKEN,
      RATE_LIMIT_MAX: "1000000",
      AUTH_FAILURES_PER_MINUTE: "1000000",
      EXPIRY_SWEEP_INTERVAL_MS: "60000",
      WEBHOOK_RETRY_DELAYS: "0.05,0.1,0.1",
      WEBHOOK_TIMEOUT_MS: "1000",
      FALLBACK_URL: "https://fallback.example.com",
      SHUTDOWN_GRACE_SECONDS: "0",
      // The sandbox accepts only its account's key; tests that call its API directly use this one.
      STRIPE_SECRET_KEY: "sk_test_suite",
      SECRETS_KEY: TEST_SECRETS_KEY,
      ...env,
    },
    catalog,
  );
  const db = startOptions.db ?? (await createTestDatabase()).db;
  const running = await startService(config, { ...startOptions, db });

  const request = async (
    method: string,
    path: string,
    requestOptions: RequestOptions = {},
  ): Promise<JsonResponse> => {
    const headers: Record<string, string> = { ...requestOptions.headers };
    let body: string | undefined = requestOptions.rawBody;
    if (requestOptions.body !== undefined) {
      body = JSON.stringify(requestOptions.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers,
      body: body ?? null,
      redirect: "manual",
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed };
  };
  const admin = (method: string, path: string, body?: unknown) =>
    request(method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const api = (
    group: TestGroup,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    request(method, path, {
      body,
      headers: { "x-public-key": group.publicKey, "x-secret-key": group.secretKey, ...headers },
    });
  const createGroup: TestService["createGroup"] = async (groupOptions = {}) => {
    const response = await admin("POST", "/admin/v1/groups", {
      name: groupOptions.name ?? "Test shop",
      safeSites: groupOptions.safeSites ?? [{ name: "Main", url: running.url }],
    });
    if (response.status !== 201) throw new Error(`group not created: ${JSON.stringify(response.body)}`);
    return response.body.data;
  };
  return {
    ...running,
    config,
    request,
    admin,
    api,
    createGroup,
    createPayment: (group, overrides, headers) =>
      api(group, "POST", "/api/v1/payments/create", validPayment(overrides), headers),
    processorClient: () => {
      const sandbox = new URL(running.sandboxUrl as string);
      return new Stripe(config.processorSettings.stripe?.STRIPE_SECRET_KEY as string, {
        host: sandbox.hostname,
        port: sandbox.port,
        protocol: "http",
      });
    },
    sandboxPost: async (path, body) => {
      const response = await fetch(`${running.sandboxUrl}${path}`, {
        method: "POST",
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? null : JSON.stringify(body),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
    sandboxDelete: async (path) => {
      const response = await fetch(`${running.sandboxUrl}${path}`, { method: "DELETE" });
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
  };
}

/** A service whose webhooks may go to a loopback receiver, with one group: the common setup. */
export async function startWithReceiver(behaviours: Record<string, Behaviour>) {
  const receiver = new Receiver(behaviours);
  await receiver.start();
  const service = await startTestService({ ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host });
  const group = await service.createGroup();
  return {
    receiver,
    service,
    group,
    async stop() {
      await service.close();
      await receiver.stop();
    },
  };
}
