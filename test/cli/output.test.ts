import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { forPeople } from "../../src/cli/output.ts";

describe("the CLI's answers for people", () => {
  it("shows a list as a table of the chosen columns: amounts in their currency, times in UTC, nothing as —", () => {
    const items = [
      {
        id: "i1",
        kind: "paid_after_cancel",
        amount: 123456,
        currency: "usd",
        reason: null,
        flaggedAt: "2026-11-24T09:00:05.123Z",
        processorEventId: "evt_1",
      },
      {
        id: "i2",
        kind: "drift",
        amount: 5,
        currency: "cad",
        reason: "status",
        flaggedAt: "2026-11-24T10:00:00Z",
      },
    ];
    assert.equal(
      forPeople(items, { columns: ["id", "kind", "amount", "reason", "flaggedAt"] }),
      [
        "ID  KIND               AMOUNT        REASON  FLAGGED AT",
        "i1  paid_after_cancel  1,234.56 USD  —       2026-11-24 09:00:05 UTC",
        "i2  drift              0.05 CAD      status  2026-11-24 10:00:00 UTC",
      ].join("\n"),
    );
    assert.equal(forPeople([], { empty: "No failed deliveries." }), "No failed deliveries.");
    assert.equal(forPeople([]), "(none)");
  });

  it("shows an object as aligned facts, its lists as tables under their names, yes/no for flags", () => {
    const group = {
      groupId: "g1",
      groupName: "Shop",
      safeSites: [{ id: "s1", url: "https://pay.example", isActive: true }],
      limits: { perMinute: 60 },
      previousSecretValidUntil: null,
    };
    assert.equal(
      forPeople(group),
      [
        "Group ID                     g1",
        "Group name                   Shop",
        "Limits per minute            60",
        "Previous secret valid until  —",
        "",
        "Safe sites:",
        "ID  URL                  IS ACTIVE",
        "s1  https://pay.example  yes",
      ].join("\n"),
    );
  });
});
