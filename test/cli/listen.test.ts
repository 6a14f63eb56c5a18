import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { CliFailure, checkoutCli } from "../helpers/process.ts";
import { Receiver, WEBHOOK_BODY_FIELDS } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("checkout listen and checkout trigger", () => {
  let service: TestService;
  let group: TestGroup;
  let receiver: Receiver;
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Laptop" });
    receiver = new Receiver({
      "/webhooks": () => 200,
      "/refusing": () => ({ status: 400, body: '{"error":"No matching signature found"}' }),
    });
    await receiver.start();
    home = mkdtempSync(join(tmpdir(), "listen-home-"));
    // Only what listen and trigger are documented to need: the URL and the merchant keys.
    env = {
      PATH: process.env.PATH,
      HOME: home,
      PUBLIC_KEY: group.publicKey,
      SECRET_KEY: group.secretKey,
    };
  });
  after(async () => {
    await receiver.stop();
    await service.close();
    rmSync(home, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => checkoutCli([...args, "--url", service.url], env);

  /** A running `checkout listen`; `output()` is what it printed so far. */
  const startListen = (...args: string[]) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        "bin/checkout.js",
        "listen",
        "--forward-to",
        `${receiver.url}/webhooks`,
        "--url",
        service.url,
        ...args,
      ],
      { env },
    );
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    return { child, exited, output: () => stdout };
  };

  const triggered = async (event: string) => {
    const answer = JSON.parse((await cli("trigger", event, "--json")).stdout);
    assert.equal(answer.event, event);
    return answer.transactionId as string;
  };
  const forwardedFor = (transactionId: string, event: string) =>
    receiver
      .at("/webhooks")
      .filter(
        (request) =>
          request.headers["x-service-transaction"] === transactionId &&
          request.headers["x-service-event"] === event,
      );

  it("forwards a triggered event, signed so that standardwebhooks verifies it with --print-secret's secret", async () => {
    const secret = (await cli("listen", "--print-secret")).stdout.trim();
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    assert.equal(
      (await cli("listen", "--print-secret")).stdout.trim(),
      secret,
      "the same secret on every run",
    );
    const stateFile = join(home, ".config", "checkout-service");
    assert.equal(statSync(stateFile).mode & 0o077, 0, "kept where only its owner can read it");

    const listening = startListen();
    try {
      await waitFor(
        async () => (listening.output().includes("Ready.") ? true : undefined),
        10_000,
        "listen ready",
      );
      const id = await triggered("payment.completed");
      const [request] = await waitFor(async () => {
        const found = forwardedFor(id, "payment.completed");
        return found.length > 0 ? found : undefined;
      });
      assert.ok(request);
      const verified = new Webhook(secret).verify(
        request.body,
        request.headers as Record<string, string>,
      ) as Record<string, unknown>;
      assert.equal(verified.transactionId, id);
      assert.deepEqual(Object.keys(verified), WEBHOOK_BODY_FIELDS, "the production body, field for field");
      const [event] = (await service.api(group, "GET", `/api/v1/payments/${id}/events`)).body.data;
      assert.equal(request.headers["webhook-id"], event.eventId, "webhook-id is the eventId");
      assert.equal(request.headers["user-agent"], "Service-Webhook/1.0");
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(
          request.body,
          request.headers as Record<string, string>,
        ),
      );
      await waitFor(async () =>
        /payment\.completed\s+\S+\s+-> \[200\]/.test(listening.output()) ? true : undefined,
      );
      const started = Date.now();
      listening.child.kill("SIGINT");
      assert.equal(await listening.exited, 0);
      assert.ok(Date.now() - started < 3000, "exits within a few seconds of SIGINT");
    } finally {
      listening.child.kill("SIGKILL");
    }
  });

  it("shows a refusing receiver's answer, and once the hint that listen signs with its own secret", async () => {
    const listening = startListen("--forward-to", `${receiver.url}/refusing`);
    try {
      await waitFor(async () => (listening.output().includes("Ready.") ? true : undefined), 10_000, "ready");
      await triggered("payment.completed");
      await triggered("payment.failed");
      const refusals = /-> \[400\] "\{\\"error\\":\\"No matching signature found\\"\}"/g;
      await waitFor(async () => ((listening.output().match(refusals) ?? []).length >= 2 ? true : undefined));
      const hints = listening.output().match(/hint: listen signs with its own secret.*--print-secret/g) ?? [];
      assert.equal(hints.length, 1, listening.output());
    } finally {
      listening.child.kill("SIGKILL");
      await listening.exited;
    }
  });

  it("resumes after a restart: what happened while it was stopped arrives, nothing twice", async () => {
    const first = startListen();
    await waitFor(async () => (first.output().includes("Ready.") ? true : undefined), 10_000, "listen ready");
    const before = await triggered("payment.completed");
    await waitFor(async () => (forwardedFor(before, "payment.completed").length > 0 ? true : undefined));
    first.child.kill("SIGINT");
    await first.exited;

    const missed = await triggered("payment.failed");
    const second = startListen("--events", "payment.failed,payment.refunded");
    try {
      await waitFor(async () => (forwardedFor(missed, "payment.failed").length > 0 ? true : undefined));
      const refunded = await triggered("payment.refunded");
      await waitFor(async () => (forwardedFor(refunded, "payment.refunded").length > 0 ? true : undefined));
      assert.equal(forwardedFor(before, "payment.completed").length, 1, "not forwarded again");
      assert.equal(forwardedFor(refunded, "payment.completed").length, 0, "--events leaves the others out");
      const ids = receiver.at("/webhooks").map((request) => request.headers["webhook-id"]);
      assert.equal(new Set(ids).size, ids.length, "no event forwarded twice");
    } finally {
      second.child.kill("SIGINT");
      await second.exited;
    }
  });

  it("answers mistakes with a line naming what failed, never a stack trace", async () => {
    const failing = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
      const result = await checkoutCli(args, { ...env, ...extraEnv }).then(
        () => assert.fail(`checkout ${args.join(" ")} should fail`),
        (error: unknown) => {
          assert.ok(error instanceof CliFailure, String(error));
          return error;
        },
      );
      assert.equal(result.code, 1, args.join(" "));
      assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
      return result.stderr;
    };
    assert.match(await failing(["payments", "list", "--bogus"]), /unknown option '--bogus'/);
    assert.match(await failing(["payments", "refund"]), /missing required argument 'transactionId'/);
    assert.match(
      await failing(["trigger", "payment.nope", "--url", service.url]),
      /Allowed choices are payment\.completed/,
    );
    assert.match(await failing(["payments", "list", "--limit"]), /argument missing/);
    assert.match(await failing(["frobnicate"]), /unknown command 'frobnicate'/);
    assert.match(
      await failing(["groups", "list", "--url", service.url], { ADMIN_TOKEN: "" }),
      /admin token is required/,
    );
    // No --url: PORT names the default; nothing listens on that port any more.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = String((closed.address() as AddressInfo).port);
    await new Promise((resolve) => closed.close(resolve));
    assert.match(
      await failing(["payments", "list"], { PORT: port }),
      new RegExp(`cannot reach http://localhost:${port}: connection refused`),
    );
    assert.match(
      await failing(["payments", "list"], { CHECKOUT_URL: `http://127.0.0.1:${port}`, PORT: "1" }),
      new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}: connection refused`),
      "the banner's exported CHECKOUT_URL comes before PORT",
    );
    assert.match(
      await failing(["payments", "get", "00000000-0000-0000-0000-000000000000", "--url", service.url]),
      /^checkout: 404 NOT_FOUND: Payment not found\n$/,
    );
    const debugged = await checkoutCli(
      ["payments", "get", "00000000-0000-0000-0000-000000000000", "--url", service.url],
      { ...env, DEBUG: "checkout" },
    ).then(
      () => assert.fail("should fail"),
      (error: unknown) => error as CliFailure,
    );
    assert.match(
      debugged.stderr,
      /404 NOT_FOUND: Payment not found\n\s+at /,
      "DEBUG=checkout shows the stack",
    );
    assert.match(
      await failing(["payments", "list", "--url", "localhost:5100"]),
      /--url.*takes the service's http\(s\) address, e\.g\. http:\/\/localhost:5100/,
    );
    assert.match(
      await failing(["payments", "list", "--url", service.sandboxUrl as string]),
      /did not answer as the checkout service \(404\)\. The sandbox processor listens on the service's port \+ 1/,
    );
    assert.match(
      await failing(["payments", "refund", "00000000-0000-0000-0000-000000000000", "--amount", "12.50"]),
      /--amount.*takes cents, a whole number: 1250 for 12\.50/,
    );
    const help = await checkoutCli(["help", "payments"], env);
    assert.match(help.stdout, /list \[options\]/);
    assert.match(help.stdout, /refund \[options\] <transactionId>/);
    const examples = (await checkoutCli(["--help"], env)).stdout.split("Examples")[1] ?? "";
    const commands = examples.split("\n").filter((line) => /^ {2}\S/.test(line));
    assert.ok(commands.length >= 3, examples);
    for (const line of commands) {
      assert.match(line, /^ {2}npm run checkout -- /, "an example runs as written in a fresh clone");
    }
    const listHelp = (await checkoutCli(["payments", "list", "--help"], env)).stdout;
    for (const option of ["--url <url>", "--json", "--public-key <key>", "--secret-key <key>"]) {
      assert.ok(listHelp.includes(option), `payments list --help names ${option}`);
    }
  });

  it("lists, reads and cancels payments with the merchant keys, --json everywhere", async () => {
    await service.createPayment(group);
    const created = (await service.createPayment(group)).body.data.transactionId as string;
    const page = JSON.parse((await cli("payments", "list", "--limit", "2", "--json")).stdout);
    assert.equal(page.payments.length, 2);
    assert.equal(typeof page.hasMore, "boolean");
    assert.equal(JSON.parse((await cli("payments", "get", created, "--json")).stdout).status, "processing");
    await cli("payments", "cancel", created);
    assert.equal(JSON.parse((await cli("payments", "get", created, "--json")).stdout).status, "cancelled");
    const human = (await cli("payments", "get", created)).stdout;
    assert.match(human, /^Status\s+cancelled$/m);
    assert.match(human, /^Amount\s+19\.99 USD$/m);
    const table = (await cli("payments", "list", "--limit", "1")).stdout.split("\n");
    assert.match(
      table[0] ?? "",
      /^TRANSACTION ID\s+STATUS\s+AMOUNT\s+REFUNDED\s+CUSTOMER\s+PROCESSOR\s+CREATED$/,
    );
    assert.match(
      table[1] ?? "",
      new RegExp(
        `^${created}\\s+cancelled\\s+19\\.99 USD\\s+jane@example\\.com\\s+stripe\\s+[\\d-]{10} [\\d:]{8} UTC$`,
      ),
    );
    assert.match(table.at(-2) ?? "", /^More: add --after [0-9a-f-]{36}$/);
  });
});
