import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { newSecretsKey, SecretBox } from "./secret-box.ts";

/**
 * The box secrets are sealed with: SECRETS_KEY's keys, or in development a key made once in
 * DATA_DIR (mode 0600). With PROCESSOR=stripe the configuration requires SECRETS_KEY.
 */
export function secretBoxFor(config: Pick<Config, "secretsKeys" | "dataDir">): SecretBox {
  if (config.secretsKeys) return new SecretBox(config.secretsKeys);
  const path = join(config.dataDir, "secrets-key");
  let encoded: string;
  try {
    encoded = readFileSync(path, "utf8").trim();
  } catch {
    mkdirSync(config.dataDir, { recursive: true });
    encoded = newSecretsKey();
    try {
      writeFileSync(path, `${encoded}\n`, { mode: 0o600, flag: "wx" });
      chmodSync(path, 0o600);
    } catch (error) {
      // Another process made it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      encoded = readFileSync(path, "utf8").trim();
    }
  }
  return new SecretBox([Buffer.from(encoded, "base64")]);
}
