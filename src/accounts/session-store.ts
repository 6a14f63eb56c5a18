// The store @fastify/session keeps signed-in sessions in: the database, so every instance sees a
// sign-out or a revocation at once. Sessions nobody signed in to are never written.
import { randomUUID } from "node:crypto";
import type { SessionStore } from "@fastify/session";
import type { Database } from "../db/database.ts";
import { hexDigest } from "../http/secret-hash.ts";
import { deleteWebSession, findWebSessionData, upsertWebSession } from "./store.ts";

type Callback = (error?: unknown) => void;

interface StoredSession {
  accountId?: string;
  address?: string;
  userAgent?: string;
  cookie: { expires?: Date | string | null };
}

export function databaseSessionStore(db: Database, maxAgeMs: number): SessionStore {
  return {
    set(sessionId: string, session: unknown, callback: Callback) {
      const data = session as StoredSession;
      if (!data.accountId) {
        callback();
        return;
      }
      const expires = data.cookie.expires ? new Date(data.cookie.expires) : new Date(Date.now() + maxAgeMs);
      upsertWebSession(db, {
        id: randomUUID(),
        idHash: hexDigest(sessionId),
        accountId: data.accountId,
        data: JSON.stringify(session),
        address: data.address ?? "",
        userAgent: data.userAgent ?? "",
        expiresAt: expires,
      }).then(() => callback(), callback);
    },
    get(sessionId: string, callback: (error: unknown, session?: unknown) => void) {
      findWebSessionData(db, hexDigest(sessionId)).then(
        (data) => callback(null, data ?? null),
        (error) => callback(error),
      );
    },
    destroy(sessionId: string, callback: Callback) {
      deleteWebSession(db, hexDigest(sessionId)).then(() => callback(), callback);
    },
  } as SessionStore;
}
