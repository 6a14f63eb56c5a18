// The one money module: every currency's exponent in one table, amounts shown and read through it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CURRENCIES,
  EXPONENTS,
  exponentOf,
  majorUnits,
  money,
  readAmount,
} from "../../../src/platform/format/money.ts";

describe("money", () => {
  it("shows minor units in major units with the currency", () => {
    assert.equal(money(123456, "usd"), "1,234.56 USD");
    assert.equal(money(5, "cad"), "0.05 CAD");
    assert.equal(money(0, "usd"), "0.00 USD");
    assert.equal(money(99999, "usd"), "999.99 USD");
    assert.equal(money(100000, "usd"), "1,000.00 USD");
    assert.equal(
      money(-123456789012, "eur"),
      "-1,234,567,890.12 EUR",
      "a code outside the table has two decimals",
    );
    assert.equal(majorUnits(1250, "usd"), "12.50");
  });

  it("reads a typed amount exactly, or says why it is not one", () => {
    assert.deepEqual(readAmount("12.5", "usd"), { minor: 1250 });
    assert.deepEqual(readAmount(" 12 ", "usd"), { minor: 1200 });
    assert.deepEqual(readAmount("0.07", "usd"), { minor: 7 });
    assert.deepEqual(readAmount("19.99", "cad"), { minor: 1999 }, "no floating-point drift");
    const problems: [string, string][] = [
      ["", "empty"],
      ["-1", "negative"],
      ["12,34", "decimal-comma"],
      ["1.234", "too-many-decimals"],
      ["1e3", "not-a-number"],
      ["12.", "not-a-number"],
      ["abc", "not-a-number"],
      ["1 000", "not-a-number"],
      ["1234567890", "not-a-number"],
    ];
    for (const [text, problem] of problems) assert.deepEqual(readAmount(text, "usd"), { problem }, text);
  });

  it("takes a currency of no decimals or of three as a change of the table alone", () => {
    const table = { ...EXPONENTS, jpy: 0, kwd: 3 };
    assert.equal(exponentOf("JPY", table), 0);
    assert.equal(money(123456, "jpy", table), "123,456 JPY");
    assert.equal(money(1234567, "kwd", table), "1,234.567 KWD");
    assert.equal(majorUnits(5, "kwd", table), "0.005");
    assert.deepEqual(readAmount("1250", "jpy", table), { minor: 1250 });
    assert.deepEqual(readAmount("12.5", "jpy", table), { problem: "too-many-decimals" });
    assert.deepEqual(readAmount("1.5", "kwd", table), { minor: 1500 });
    assert.deepEqual(readAmount("1.2345", "kwd", table), { problem: "too-many-decimals" });
  });

  it("lists the currencies a payment may be in from the same table", () => {
    assert.deepEqual(CURRENCIES, Object.keys(EXPONENTS));
  });
});
