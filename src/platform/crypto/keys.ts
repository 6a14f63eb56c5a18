import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newSecretsKey, SecretBox } from "./secret-box.ts";

/**
 * The box secrets are sealed with: SECRETS_KEY's keys, or in development a key made once in
 * DATA_DIR (mode 0600). With a real PROCESSOR the configuration requires SECRETS_KEY.
 * `madeKeyFile` is the key file this call made, if it made one: a start that finds the database's
 * secrets sealed with another key removes it again, so the right key's file can be put back.
 */
export function secretBoxFor(config: { secretsKeys: readonly Buffer[] | undefined; dataDir: string }): {
  box: SecretBox;
  madeKeyFile: string | undefined;
} {
  if (config.secretsKeys) return { box: new SecretBox(config.secretsKeys), madeKeyFile: undefined };
  const path = join(config.dataDir, "secrets-key");
  let encoded: string;
  let madeKeyFile: string | undefined;
  try {
    encoded = readFileSync(path, "utf8").trim();
  } catch {
    mkdirSync(config.dataDir, { recursive: true });
    encoded = newSecretsKey();
    try {
      writeFileSync(path, `${encoded}\n`, { mode: 0o600, flag: "wx" });
      chmodSync(path, 0o600);
      madeKeyFile = path;
    } catch (error) {
      // Another process made it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      encoded = readFileSync(path, "utf8").trim();
    }
  }
  return { box: new SecretBox([Buffer.from(encoded, "base64")]), madeKeyFile };
}

/** What to tell whoever started the service with a key the database's secrets were not sealed with. */
export function wrongKeyMessage(keyId: string, usedKeyFile: boolean): string {
  return (
    `the secrets stored in this database were sealed with another key (key id ${keyId}) than ` +
    `${usedKeyFile ? "DATA_DIR/secrets-key" : "SECRETS_KEY"} gives: start with the key this database was set up ` +
    "with (SECRETS_KEY, or in sandbox mode the secrets-key file of the DATA_DIR that first used this database); " +
    "to move to a new key, set SECRETS_KEY=NEW,OLD"
  );
}
