// A group's processor routes through the admin API, applied by creates.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openCheckout, unreachableProcessor } from "../helpers/processor.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

describe("processor routing per group (admin API)", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Routed" });
  });
  after(() => service.close());

  const path = (groupId = group.groupId) => `/admin/v1/groups/${groupId}/routing`;

  it("answers the default route as no routes, sets routes in order (currencies lowercase), and clears them", async () => {
    assert.deepEqual((await service.admin("GET", path())).body.data, {
      groupId: group.groupId,
      routes: [],
      defaultRoute: ["stripe", "square"],
    });
    const set = await service.admin("PUT", path(), {
      routes: [{ currency: "USD", processors: ["stripe"] }, { processors: ["stripe", "stripe"] }],
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const routes = [{ currency: "usd", processors: ["stripe"] }, { processors: ["stripe"] }];
    assert.deepEqual(set.body.data, { groupId: group.groupId, routes, defaultRoute: ["stripe", "square"] });
    assert.deepEqual((await service.admin("GET", path())).body.data.routes, routes);
    // Creates still go through: the route names an enabled processor.
    const created = await service.createPayment(group);
    assert.equal(created.status, 200);
    assert.equal(
      (await service.api(group, "GET", `/api/v1/payments/${created.body.data.transactionId}`)).body.data
        .processor,
      "stripe",
    );
    // A route to Square sends the group's USD payments there.
    await service.admin("PUT", path(), { routes: [{ currency: "usd", processors: ["square", "stripe"] }] });
    const routed = await service.createPayment(group);
    assert.equal(routed.status, 200, JSON.stringify(routed.body));
    assert.equal(
      (await service.api(group, "GET", `/api/v1/payments/${routed.body.data.transactionId}`)).body.data
        .processor,
      "square",
    );
    const cleared = await service.admin("DELETE", path());
    assert.equal(cleared.status, 200);
    assert.deepEqual(cleared.body.data.routes, []);
    const audited = await service.services.db.query<{ action: string; group_id: string }>(
      "SELECT action, group_id FROM audit_log WHERE action LIKE 'routing.%' AND group_id = $1 ORDER BY id",
      [group.groupId],
    );
    assert.deepEqual(
      audited.map((row) => row.action),
      ["routing.set", "routing.set", "routing.cleared"],
    );
  });

  it("refuses an unknown processor, an unknown currency, an empty list or a malformed body, and changes nothing", async () => {
    await service.admin("PUT", path(), { routes: [{ processors: ["stripe"] }] });
    const bad: unknown[] = [
      { routes: [{ processors: ["paypal"] }] },
      { routes: [{ currency: "eur", processors: ["stripe"] }] },
      { routes: [{ processors: [] }] },
      { routes: "stripe" },
      {},
    ];
    for (const body of bad) {
      const answer = await service.admin("PUT", path(), body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error.code, "INVALID_REQUEST");
    }
    assert.deepEqual((await service.admin("GET", path())).body.data.routes, [{ processors: ["stripe"] }]);
    // A route for a currency none of its processors takes (the sandbox's Square location is USD).
    const cadAtSquare = await service.admin("PUT", path(), {
      routes: [{ currency: "cad", processors: ["square"] }],
    });
    assert.equal(cadAtSquare.status, 400);
    assert.match(cadAtSquare.body.error.message, /routes\[0\]: no processor of square takes CAD/);
    const either = await service.admin("PUT", path(), {
      routes: [{ currency: "cad", processors: ["square", "stripe"] }],
    });
    assert.equal(either.status, 200, "one of them takes it");
    assert.equal((await service.admin("PUT", path(), { routes: [{ processors: ["stripe"] }] })).status, 200);
    for (const groupId of ["00000000-0000-4000-8000-000000000000", "not-a-group"]) {
      assert.equal((await service.admin("GET", path(groupId))).status, 404);
      assert.equal((await service.admin("PUT", path(groupId), { routes: [] })).status, 404);
    }
  });
});

describe("a payment no processor of its route takes", () => {
  let service: TestService;
  let group: TestGroup;
  let opened = 0;
  before(async () => {
    const usdOnly = unreachableProcessor({
      takes: (currency) => currency === "usd",
      createCheckout: async (request) => {
        opened += 1;
        return openCheckout(request);
      },
    });
    service = await startTestService({}, { processors: [usdOnly] });
    group = await service.createGroup();
  });
  after(() => service.close());

  it("answers 409 NO_ELIGIBLE_PROCESSOR, asks no processor and keeps nothing", async () => {
    const refused = await service.createPayment(group, { currency: "cad" });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, "NO_ELIGIBLE_PROCESSOR");
    assert.equal(opened, 0);
    const [row] = await service.services.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM payments WHERE group_id = $1",
      [group.groupId],
    );
    assert.equal(row?.n, 0);
    assert.equal((await service.createPayment(group, { currency: "usd" })).status, 200);
    assert.equal(opened, 1);
  });

  it("refuses a route to a processor this installation has not enabled", async () => {
    const answer = await service.admin("PUT", `/admin/v1/groups/${group.groupId}/routing`, {
      routes: [{ processors: ["square"] }],
    });
    assert.equal(answer.status, 400);
    assert.match(answer.body.error.message, /"square" is not enabled/);
  });
});
