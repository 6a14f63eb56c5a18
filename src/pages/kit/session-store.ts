// The store @fastify/session keeps signed-in sessions in: the database, so every instance sees a
// sign-out or a revocation at once. Sessions nobody signed in to are never written, and only a
// sign-in makes a session row: a save never brings back a session that was ended meanwhile.
// The sign-in is audited with the row, once, when the session is made.
import { randomUUID } from "node:crypto";
import type { SessionStore } from "@fastify/session";
import type { SessionAccount } from "../../accounts/sql/accounts.ts";
import {
  deleteWebSession,
  findWebSession,
  insertWebSession,
  updateWebSession,
} from "../../accounts/sql/sessions.ts";
import { insertAuditEntry } from "../../platform/audit/store.ts";
import { hexDigest } from "../../platform/crypto/secret-hash.ts";
import type { Database } from "../../platform/db/database.ts";

type Callback = (error?: unknown) => void;

/** Who signs in, for the audit entry the new session row is written with. */
export interface SigningIn {
  actor: string;
  groupId: string | null;
}

interface StoredSession {
  accountId?: string;
  /** Set by sign-in on the new session only; never stored. */
  signingIn?: SigningIn;
  /** The account as it is now, read with the session on each request; never stored. */
  account?: SessionAccount;
  address?: string;
  userAgent?: string;
  cookie: { expires?: Date | string | null };
}

export function databaseSessionStore(db: Database, maxAgeMs: number): SessionStore {
  return {
    set(sessionId: string, session: unknown, callback: Callback) {
      const { signingIn, account, ...data } = session as StoredSession;
      if (!data.accountId) {
        callback();
        return;
      }
      const expiresAt = data.cookie.expires ? new Date(data.cookie.expires) : new Date(Date.now() + maxAgeMs);
      const accountId = data.accountId;
      const saved = signingIn
        ? db.transaction(async (tx) => {
            const made = await insertWebSession(tx, {
              id: randomUUID(),
              idHash: hexDigest(sessionId),
              accountId,
              data: JSON.stringify(data),
              address: data.address ?? "",
              userAgent: data.userAgent ?? "",
              expiresAt,
            });
            if (!made) return;
            await insertAuditEntry(tx, {
              groupId: signingIn.groupId,
              actor: signingIn.actor,
              action: "account.signed_in",
              target: accountId,
              detail: null,
              address: data.address ?? null,
            });
          })
        : updateWebSession(db, {
            idHash: hexDigest(sessionId),
            accountId: data.accountId,
            data: JSON.stringify(data),
            expiresAt,
          });
      saved.then(() => callback(), callback);
    },
    get(sessionId: string, callback: (error: unknown, session?: unknown) => void) {
      findWebSession(db, hexDigest(sessionId)).then(
        (found) => callback(null, found ? { ...(found.data as object), account: found.account } : null),
        (error) => callback(error),
      );
    },
    destroy(sessionId: string, callback: Callback) {
      deleteWebSession(db, hexDigest(sessionId)).then(() => callback(), callback);
    },
  } as SessionStore;
}
