// Random secrets of an installation (the page session secret, the sandbox's keys): made on first
// use, kept in the database for every instance, sealed with SECRETS_KEY like every secret at rest.
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Queryable } from "../db/database.ts";
import { insertSettingIfAbsent, readSetting, replaceSetting } from "./store.ts";

/**
 * The secret named `name`, made by `make` the first time. A value stored in plain text (before
 * sealing) or under a key SECRETS_KEY no longer lists first is sealed again here.
 */
export async function installationSecret(
  db: Queryable,
  box: SecretBox,
  name: string,
  make: () => string,
): Promise<string> {
  await insertSettingIfAbsent(db, name, box.seal(make()));
  const stored = (await readSetting(db, name)) as string;
  const secret = box.reveal(stored);
  if (!box.isCurrent(stored)) await replaceSetting(db, name, stored, box.seal(secret));
  return secret;
}
