import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { checkoutCli } from "../helpers/process.ts";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("checkout endpoints", () => {
  let service: TestService;
  let receiver: Receiver;
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    receiver = new Receiver({ "/endpoint": () => 200 });
    await receiver.start();
    service = await startTestService({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
    const group = await service.createGroup({ name: "Terminal shop" });
    home = mkdtempSync(join(tmpdir(), "endpoints-home-"));
    env = { PATH: process.env.PATH, HOME: home, PUBLIC_KEY: group.publicKey, SECRET_KEY: group.secretKey };
  });
  after(async () => {
    await receiver.stop();
    await service.close();
    rmSync(home, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => checkoutCli([...args, "--url", service.url], env);
  const json = async (...args: string[]) => JSON.parse((await cli(...args, "--json")).stdout);

  it("creates (the secret once), lists, tests, rotates, disables and deletes, beside checkout trigger", async () => {
    const made = await json(
      "endpoints",
      "create",
      `${receiver.url}/endpoint`,
      "--events",
      "payment.completed,payment.failed",
    );
    assert.match(made.secret, /^whsec_/);
    assert.deepEqual(made.events, ["payment.completed", "payment.failed"]);
    const table = (await cli("endpoints", "list")).stdout;
    assert.match(
      table,
      new RegExp(
        `^${made.endpointId}\\s+http://127\\.0\\.0\\.1:\\d+/endpoint\\s+payment\\.completed,payment\\.failed\\s+enabled$`,
        "m",
      ),
    );

    await json("endpoints", "test", made.endpointId);
    await json("trigger", "payment.completed");
    await waitFor(async () => (receiver.at("/endpoint").length >= 2 ? true : undefined));
    const events = receiver.at("/endpoint").map((received) => JSON.parse(received.body).event);
    assert.deepEqual(events.sort(), ["payment.completed", "webhook.test"]);
    for (const received of receiver.at("/endpoint")) {
      new Webhook(made.secret).verify(received.body, received.headers as Record<string, string>);
    }

    const rotated = await json("endpoints", "rotate", made.endpointId, "--grace", "0");
    assert.notEqual(rotated.secret, made.secret);
    const disabled = await json("endpoints", "update", made.endpointId, "--disable");
    assert.equal(disabled.enabled, false);
    assert.match((await cli("endpoints", "list")).stdout, /disabled \(disabled\)/);
    assert.equal((await json("endpoints", "delete", made.endpointId)).deleted, true);
    assert.match((await cli("endpoints", "list")).stdout, /No endpoints\./);
  });
});
