import assert from "node:assert/strict";
import type { LookupAddress } from "node:dns";
import { after, before, describe, it } from "node:test";
import { isPrivateAddress, reachableUrl } from "../../src/net/unreachable-host.ts";
import { guardedLookup, type Resolver } from "../../src/webhooks/safe-connect.ts";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("address classification", () => {
  it("refuses loopback, private, link-local, unique-local and unspecified addresses, v4 and v6", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.1",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "0.0.0.0",
      "100.64.0.1",
      "::1",
      "::",
      "fd00::1",
      "fc12:3456::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::a9fe:a9fe",
    ]) {
      assert.equal(isPrivateAddress(address), true, address);
    }
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:5db8:d822"]) {
      assert.equal(isPrivateAddress(address), false, address);
    }
  });

  it("accepts public http(s) URLs", () => {
    assert.ok(reachableUrl("https://shop.example.com/ok", []));
    assert.ok(reachableUrl("http://93.184.216.34:8080/x", []));
    assert.equal(reachableUrl("https://shop.local/ok", []), null);
  });

  it("the guarded lookup refuses a metadata address without connecting anywhere", async () => {
    const asked: string[] = [];
    const resolver: Resolver = async (hostname) => {
      asked.push(hostname);
      return [{ address: "169.254.169.254", family: 4 }];
    };
    const lookup = guardedLookup(resolver, true);
    const error = await new Promise<Error | null>((resolve) =>
      lookup("metadata.example.com", {}, (failure) => resolve(failure)),
    );
    assert.match(String(error?.message), /169\.254\.169\.254/);
    assert.deepEqual(asked, ["metadata.example.com"]);
    const mixed = guardedLookup(
      async () => [
        { address: "93.184.216.34", family: 4 },
        { address: "10.0.0.5", family: 4 },
      ],
      true,
    );
    const mixedError = await new Promise<Error | null>((resolve) =>
      mixed("mixed.example.com", { all: true }, (failure) => resolve(failure)),
    );
    assert.match(String(mixedError?.message), /10\.0\.0\.5/, "one private answer is enough to refuse");
  });
});

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
    for (const attempt of delivery.attempts) assert.match(attempt.error, /refusing to connect/);
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
