// Secrets the service must read back (TOTP secrets, webhook signing secrets) are kept sealed with
// AES-256-GCM under SECRETS_KEY. Each sealed value names the key that sealed it, so the key can be
// rotated: SECRETS_KEY lists the new key first and the old ones after it until everything is
// sealed again (`checkout secrets reseal`).
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";

const PREFIX = "sealed.v1";

/** A stored value sealed with a key SECRETS_KEY does not list: the service was given the wrong key. */
export class SecretsKeyMismatchError extends Error {
  override readonly name = "SecretsKeyMismatchError";
  constructor(readonly keyId: string) {
    super(`not a value sealed with a key of SECRETS_KEY (it names key ${keyId})`);
  }
}

/** A key's id: not secret, enough to tell the keys of one installation apart. */
const keyIdOf = (key: Buffer) => createHash("sha256").update(key).digest("base64url").slice(0, 8);

export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly current: { id: string; key: Buffer };

  /** `keys[0]` seals; every key opens what it sealed. Each is 32 bytes. */
  constructor(keys: readonly Buffer[]) {
    const [first] = keys;
    if (!first || keys.some((key) => key.length !== 32)) throw new Error("a secrets key is 32 bytes");
    this.keys = new Map(keys.map((key) => [keyIdOf(key), key]));
    this.current = { id: keyIdOf(first), key: first };
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return [PREFIX, this.current.id, iv.toString("base64url"), body.toString("base64url")].join(".");
  }

  open(sealed: string): string {
    const [prefixA, prefixB, keyId, iv, body] = sealed.split(".");
    const key = keyId ? this.keys.get(keyId) : undefined;
    if (`${prefixA}.${prefixB}` !== PREFIX || !keyId || !iv || !body) {
      throw new Error("not a sealed value");
    }
    if (!key) throw new SecretsKeyMismatchError(keyId);
    const data = Buffer.from(body, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(data.subarray(data.length - 16));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString(
      "utf8",
    );
  }

  /**
   * A stored value as it was meant: opened when sealed; a value from before sealing (plain) is
   * taken as it is, until the start-up reseal seals it.
   */
  reveal(stored: string): string {
    return SecretBox.isSealed(stored) ? this.open(stored) : stored;
  }

  /**
   * A keyed hash of `value` for `purpose` (HMAC-SHA256 under a key derived from the current key),
   * prefixed with that key's id: who holds SECRETS_KEY can tell whether a value is the one hashed,
   * nobody else can, and a list of guesses is no help without the key.
   */
  keyedDigest(purpose: string, value: string): string {
    const derived = createHmac("sha256", this.current.key).update(purpose).digest();
    return `${this.current.id}:${createHmac("sha256", derived).update(value).digest("hex")}`;
  }

  /** Sealed with the current key: nothing to do on a reseal. */
  isCurrent(sealed: string): boolean {
    return sealed.startsWith(`${PREFIX}.${this.current.id}.`);
  }

  static isSealed(value: string): boolean {
    return value.startsWith(`${PREFIX}.`);
  }
}

/** A new key, as SECRETS_KEY takes it (base64 of 32 random bytes). */
export const newSecretsKey = (): string => randomBytes(32).toString("base64");
