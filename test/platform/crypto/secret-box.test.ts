import assert from "node:assert/strict";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { secretBoxFor } from "../../../src/platform/crypto/keys.ts";
import { SecretBox } from "../../../src/platform/crypto/secret-box.ts";

const key = (fill: number) => Buffer.alloc(32, fill);

describe("secrets sealed at rest", () => {
  it("seals with the first key, opens with any listed key, and refuses a stranger or a change", () => {
    const old = new SecretBox([key(1)]);
    const sealed = old.seal("whsec_plain");
    assert.match(sealed, /^sealed\.v1\./);
    assert.ok(!sealed.includes("whsec_plain"));
    assert.notEqual(old.seal("whsec_plain"), sealed, "a fresh nonce every time");
    // Rotation: the new key first, the old one still listed, until everything is sealed again.
    const rotated = new SecretBox([key(2), key(1)]);
    assert.equal(rotated.open(sealed), "whsec_plain");
    assert.equal(rotated.isCurrent(sealed), false);
    assert.equal(rotated.isCurrent(rotated.seal("x")), true);
    assert.throws(() => new SecretBox([key(2)]).open(sealed), /not a value sealed with a key of SECRETS_KEY/);
    // One character of the ciphertext changed, always to another one (it was chosen by the last
    // character before, and about one run in 60 "changed" it to itself: no exception, a red CI).
    const at = sealed.length - 3;
    const tampered = sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1);
    assert.notEqual(tampered, sealed);
    assert.throws(() => old.open(tampered));
    assert.throws(() => new SecretBox([Buffer.alloc(16)]), /32 bytes/);
  });

  it("in development, makes one key in DATA_DIR, readable by its owner only, and keeps it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "secrets-key-"));
    const first = secretBoxFor({ secretsKeys: undefined, dataDir });
    assert.equal(first.madeKeyFile, join(dataDir, "secrets-key"));
    const sealed = first.box.seal("kept");
    const file = join(dataDir, "secrets-key");
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal(Buffer.from((await readFile(file, "utf8")).trim(), "base64").length, 32);
    const again = secretBoxFor({ secretsKeys: undefined, dataDir });
    assert.equal(again.madeKeyFile, undefined, "the file is read, not made again");
    assert.equal(again.box.open(sealed), "kept");
  });
});
