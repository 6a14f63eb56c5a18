// The generated admin token's one copy in clear: a file in DATA_DIR that only the service's user
// can read, written before the token's hash is stored, so a start that fails half-way never
// loses it. The database keeps only hashes.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export interface AdminTokenFile {
  readonly path: string;
  write(token: string): void;
  /** The token in the file, if there is one. */
  read(): string | undefined;
}

export function adminTokenFile(dataDir: string): AdminTokenFile {
  const path = resolve(join(dataDir, "admin-token"));
  return {
    path,
    write(token) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      writeFileSync(
        path,
        `# The admin token of this checkout service, generated on its first start.\n# Delete this file once you have stored the token elsewhere.\nADMIN_TOKEN=${token}\n`,
        { mode: 0o600 },
      );
      chmodSync(path, 0o600);
    },
    read() {
      try {
        return /^ADMIN_TOKEN=(\S+)$/m.exec(readFileSync(path, "utf8"))?.[1];
      } catch {
        return undefined;
      }
    },
  };
}
