import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isPrivateAddress, reachableUrl } from "../../../src/platform/net/unreachable-host.ts";
import { guardedLookup, type Resolver } from "../../../src/webhooks/safe-connect.ts";

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

  it("reads IPv4 in hex, octal and one number, and a name as no address", () => {
    for (const address of ["0x7f.1", "0177.0.0.1", "2130706433", "0xA9FEA9FE", "[::1]"]) {
      assert.equal(isPrivateAddress(address), true, address);
    }
    for (const name of ["shop.example.com", "cafe.bad", "localhost", "", "0x7f.1.example"]) {
      assert.equal(isPrivateAddress(name), false, name);
    }
  });

  it("allows only global unicast: multicast, reserved and IPv4 hidden in IPv6 are refused too", () => {
    for (const address of [
      "224.0.0.1",
      "239.255.255.250",
      "240.0.0.1",
      "255.255.255.255",
      "192.0.0.5",
      "198.18.0.1",
      "172.200.0.1",
      "::127.0.0.1",
      "::7f00:1",
      "::ffff:0:127.0.0.1",
      "2002:7f00:1::1",
      "2002:a9fe:a9fe::",
      "64:ff9b::7f00:1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::1",
      "fec0::1",
      "ff02::1",
      "2001::1",
    ]) {
      assert.equal(isPrivateAddress(address), true, address);
    }
    for (const address of ["64:ff9b::808:808", "2002:808:808::1", "2001:4860:4860::8888"]) {
      assert.equal(isPrivateAddress(address), false, address);
    }
    for (const url of [
      "http://[::127.0.0.1]/x",
      "http://[::ffff:0:127.0.0.1]/x",
      "http://[2002:7f00:1::1]/x",
      "http://[64:ff9b::a9fe:a9fe]/x",
      "http://[fec0::1]/x",
      "http://224.0.0.1/x",
      "http://255.255.255.255/x",
    ]) {
      assert.equal(reachableUrl(url, []), null, url);
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
