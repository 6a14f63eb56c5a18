// The page helpers that carry a rule: escaping, CSV cells, role checks.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Principal, Role } from "../../../src/accounts/principal.ts";
import { csvField } from "../../../src/pages/dashboard/payments.ts";
import { can, type DashboardAction } from "../../../src/pages/dashboard/permissions.ts";
import { html } from "../../../src/pages/kit/html.ts";

describe("html templates", () => {
  it("escape every interpolated string, number and array item, but not nested templates", () => {
    const probe = `<script>alert("x")</script>&'`;
    assert.equal(
      html`<p title="${probe}">${probe}${[probe, 1]}${html`<b>ok</b>`}</p>`.text,
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;1<b>ok</b></p>',
    );
    assert.equal(html`${null}${undefined}${false}`.text, "");
    assert.equal(html`${"plain text"}${"a&b"}`.text, "plain texta&amp;b", "the nothing-to-escape path");
  });
});

describe("CSV cells", () => {
  it("quote commas, quotes and line breaks, and defuse spreadsheet formulas", () => {
    assert.equal(csvField("plain"), "plain");
    assert.equal(csvField('a,"b"\nc'), '"a,""b""\nc"');
    assert.equal(csvField("=1+1"), "'=1+1");
    assert.equal(csvField("@SUM(A1)"), "'@SUM(A1)");
    assert.equal(csvField("-2"), "'-2");
    assert.equal(csvField(-2), "-2", "numbers are numbers");
    assert.equal(csvField(null), "");
  });

  it("leave no cell starting a formula, whether a spreadsheet splits on commas, semicolons or tabs", () => {
    const hostile = [
      "foo;=1+1",
      "foo,=1+1",
      "foo\t=1+1",
      "a; @SUM(A1)",
      "x;+1;-2",
      '"quoted";=HYPERLINK("http://evil.example")',
      "\t=cmd",
      "=1;=2,=3",
    ];
    for (const value of hostile) {
      const line = ["id-1", csvField(value), csvField("jane@example.com")].join(",");
      for (const separator of [",", ";", "\t"]) {
        // As a spreadsheet that ignores quotes would split it, and as one that honours them.
        const naive = line.split(separator).map((cell) => cell.replace(/^["\s]+/, ""));
        for (const cell of naive)
          assert.doesNotMatch(
            cell,
            /^[=+\-@]/,
            `${JSON.stringify(value)} split on ${JSON.stringify(separator)}`,
          );
      }
    }
    assert.equal(csvField("foo;=1+1"), `"foo;'=1+1"`);
  });

  it("leave no piece starting a formula when a cell is split again by text-to-columns, which honours quotes", () => {
    /** A CSV field read back as the spreadsheet's cell value. */
    const cellOf = (field: string) =>
      field.startsWith('"') ? field.slice(1, -1).replaceAll('""', '"') : field;
    /** A cell split on `separator` as text-to-columns does: quoted stretches kept whole, quotes removed. */
    const piecesOf = (cell: string, separator: string) => {
      const pieces: string[] = [];
      let piece = "";
      let quoted = false;
      for (let index = 0; index < cell.length; index++) {
        const char = cell[index];
        if (char === '"') {
          if (quoted && cell[index + 1] === '"') {
            piece += '"';
            index++;
          } else quoted = !quoted;
        } else if (char === separator && !quoted) {
          pieces.push(piece);
          piece = "";
        } else piece += char;
      }
      return [...pieces, piece];
    };
    const hostile = [
      'Mug,"=HYPERLINK(""http://evil.example"",""x"")"',
      'Mug\t"@SUM(1)"',
      " =1+1",
      "  @SUM(A1)",
      'Mug; "+cmd"',
      'a,"b",  "-2"',
      '"=1"',
      ' "=1"',
    ];
    for (const value of hostile) {
      const cell = cellOf(csvField(value));
      for (const separator of [",", ";", "\t"]) {
        for (const piece of piecesOf(cell, separator)) {
          assert.doesNotMatch(
            piece.trimStart(),
            /^[=+\-@]/,
            `${JSON.stringify(value)} split on ${JSON.stringify(separator)}: ${JSON.stringify(piece)}`,
          );
        }
      }
    }
  });
});

describe("roles", () => {
  const principal = (role: Role): Principal => ({
    accountId: "a",
    kind: "merchant",
    email: "e",
    groupId: "g",
    role,
    twoFactorOn: false,
    twoFactorRequired: false,
  });
  const actions: DashboardAction[] = [
    "refund",
    "resend_webhook",
    "manage_keys",
    "see_webhook_secret",
    "manage_safe_sites",
    "recover_webhooks",
    "manage_users",
    "read_audit_log",
  ];
  it("owner: everything; developer: all but users and the audit log; viewer: nothing", () => {
    for (const action of actions) {
      assert.equal(can(principal("owner"), action), true, action);
      assert.equal(
        can(principal("developer"), action),
        action !== "manage_users" && action !== "read_audit_log",
        action,
      );
      assert.equal(can(principal("viewer"), action), false, action);
    }
  });
});
