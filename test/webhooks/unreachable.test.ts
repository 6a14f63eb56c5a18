import assert from "node:assert/strict";
import type { LookupAddress } from "node:dns";
import { after, before, describe, it } from "node:test";
import type { Resolver } from "../../src/webhooks/safe-connect.ts";
import { REFUSED_ADDRESS } from "../../src/webhooks/sender.ts";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("DNS rebinding at send time", () => {
  let receiver: Receiver;
  let service: TestService;
  let group: TestGroup;
  const answers: string[] = [];

  before(async () => {
    receiver = new Receiver({ "/hook": () => 200 });
    await receiver.start();
    // A public-looking name that passes the creation-time rule but resolves to loopback at send
    // time. The receiver listens there, so any connection the guard failed to stop is counted.
    const resolver: Resolver = async (hostname): Promise<LookupAddress[]> => {
      answers.push(hostname);
      return [{ address: "127.0.0.1", family: 4 }];
    };
    service = await startTestService(
      { WEBHOOK_RETRY_DELAYS: "0.01,0.01,0.01" },
      { webhookResolver: resolver },
    );
    group = await service.createGroup();
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  it("never calls a public name that resolves to a private address", async () => {
    const port = new URL(receiver.url).port;
    const created = (
      await service.createPayment(group, { webhookUrl: `http://rebind.example.com:${port}/hook` })
    ).body.data;
    await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`);
    const delivery = await waitFor(async () => {
      const events = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}/events`))
        .body.data;
      const found = events[0]?.deliveries[0];
      return found?.state === "failed" ? found : undefined;
    });
    assert.equal(delivery.attempts.length, 4);
    for (const attempt of delivery.attempts) {
      // The merchant learns that it was refused, never which address the name resolved to.
      assert.equal(attempt.error, REFUSED_ADDRESS);
      assert.doesNotMatch(JSON.stringify(attempt), /127\.0\.0\.1/);
    }
    assert.ok(answers.includes("rebind.example.com"));
    assert.equal(receiver.received.length, 0, "no request reached the private address");
  });
});

describe("ALLOWED_PRIVATE_HOSTS at send time", () => {
  let receiver: Receiver;
  let service: TestService;
  let group: TestGroup;

  before(async () => {
    receiver = new Receiver({ "/hook": () => 200 });
    await receiver.start();
    const port = new URL(receiver.url).port;
    service = await startTestService(
      { ALLOWED_PRIVATE_HOSTS: `dev.example.com:${port}` },
      { webhookResolver: async () => [{ address: "127.0.0.1", family: 4 }] },
    );
    group = await service.createGroup();
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  it("is the only exemption", async () => {
    const port = new URL(receiver.url).port;
    const created = (
      await service.createPayment(group, { webhookUrl: `http://dev.example.com:${port}/hook` })
    ).body.data;
    await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`);
    await waitFor(async () => (receiver.received.length === 1 ? true : undefined));
  });
});
