import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { checkoutCli } from "../helpers/process.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

describe("checkout disputes", () => {
  let service: TestService;
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    service = await startTestService();
    const group = await service.createGroup({ name: "Terminal shop" });
    home = mkdtempSync(join(tmpdir(), "disputes-home-"));
    env = { PATH: process.env.PATH, HOME: home, PUBLIC_KEY: group.publicKey, SECRET_KEY: group.secretKey };
  });
  after(async () => {
    await service.close();
    rmSync(home, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => checkoutCli([...args, "--url", service.url], env);
  const json = async (...args: string[]) => JSON.parse((await cli(...args, "--json")).stdout);
  const opened = async () => {
    const waiting = async () => (await json("disputes", "list", "--status", "needs_response")).disputes;
    const before = (await waiting()).length;
    await json("trigger", "payment.disputed");
    for (let tries = 0; tries < 100; tries++) {
      const disputes = await waiting();
      if (disputes.length > before) return disputes;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("no dispute was recorded");
  };

  it("lists, shows, files and submits evidence, then accepts another: each answered in words or JSON", async () => {
    const [first] = await opened();
    const table = (await cli("disputes", "list")).stdout;
    assert.match(table, new RegExp(`^${first.disputeId}\\s+needs_response\\s+\\d{4}-\\d\\d-\\d\\d`, "m"));
    assert.match((await cli("disputes", "get", first.disputeId)).stdout, /Evidence due by\s+\d{4}-/);
    const submitted = await json(
      "disputes",
      "evidence",
      first.disputeId,
      "--product-description",
      "A blue mug",
      "--shipping-tracking",
      "1Z999AA10123456784",
      "--submit",
    );
    assert.equal(submitted.status, "under_review");
    const request = service.sandbox?.state.requests.find(
      (each) => each.path.endsWith(`/disputes/${first.processorDisputeId}`) && each.method === "POST",
    );
    assert.match(JSON.stringify(request?.body), /A blue mug/);

    const [second] = await opened();
    assert.match(
      (await cli("disputes", "accept", second.disputeId)).stdout,
      /accepted; the payment is dispute_lost/,
    );
    const refused = await cli("disputes", "accept", second.disputeId).then(
      () => assert.fail("accepted twice"),
      (error: { stderr: string }) => error,
    );
    assert.match(refused.stderr, /DISPUTE_CLOSED|no longer takes/);
  });
});
