// What every use case of accounts is built with, and the steps they share.

import { insertAuditEntry } from "../platform/audit/store.ts";
import type { Database, Queryable } from "../platform/db/database.ts";
import { DomainError, notFound } from "../platform/errors/domain-error.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import type { Logger } from "../platform/telemetry/logger.ts";
import { hashPassword, passwordProblem } from "./password.ts";
import { type AuditContext, actorName, type Principal, toPrincipal } from "./principal.ts";
import type { AccountRow } from "./sql/accounts.ts";

export interface AccountsDeps {
  db: Database;
  publicUrl: string;
  /** With SMTP_URL, invites and resets are also e-mailed; without, links are only shown. */
  mailer: Mailer | undefined;
  log: Logger;
  operatorsRequire2fa: boolean;
}

export abstract class AccountsUseCase {
  protected readonly db: Database;
  protected readonly publicUrl: string;
  protected readonly mailer: Mailer | undefined;
  protected readonly log: Logger;
  protected readonly operatorsRequire2fa: boolean;

  constructor(deps: AccountsDeps) {
    this.db = deps.db;
    this.publicUrl = deps.publicUrl;
    this.mailer = deps.mailer;
    this.log = deps.log;
    this.operatorsRequire2fa = deps.operatorsRequire2fa;
  }

  /** One audit entry, in its own statement. */
  audit(
    groupId: string | null,
    action: string,
    target: string | null,
    detail: unknown,
    context: AuditContext,
  ): Promise<void> {
    return insertAuditEntry(this.db, { groupId, action, target, detail, ...context });
  }

  /** E-mails a link when SMTP is configured; a mail that cannot be sent is logged, not thrown. */
  protected mailLink(to: string, subject: string, lines: string[]): void {
    if (!this.mailer) return;
    this.mailer.send({ to, subject, text: `${lines.join("\n\n")}\n` }).catch((error: Error) => {
      this.log.warn({ reason: error.message }, "could not e-mail a link (it was still issued)");
    });
  }

  /**
   * A password from an invite or reset link: checked, hashed, then `apply`d with the audit entry
   * in one transaction; a link that stopped working meanwhile is not found.
   */
  protected async passwordFromLink(
    link: {
      find: () => Promise<AccountRow | undefined>;
      what: string;
      action: string;
      apply: (tx: Queryable, account: AccountRow, passwordHash: string) => Promise<boolean>;
    },
    password: string,
    address: string,
  ): Promise<Principal> {
    const problem = passwordProblem(password);
    if (problem) throw new DomainError("INVALID_REQUEST", problem);
    const account = await link.find();
    if (!account) throw notFound(link.what);
    const passwordHash = await hashPassword(password);
    return this.db.transaction(async (tx) => {
      if (!(await link.apply(tx, account, passwordHash))) throw notFound(link.what);
      await insertAuditEntry(tx, {
        groupId: account.group_id,
        actor: actorName(account.kind, account.email),
        action: link.action,
        target: account.id,
        detail: null,
        address,
      });
      return toPrincipal(account, this.operatorsRequire2fa);
    });
  }
}
