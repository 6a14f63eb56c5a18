import type { Clock } from "../../platform/clock.ts";
import type { Database } from "../../platform/db/database.ts";
import { money } from "../../platform/format/money.ts";
import type { Mailer } from "../../platform/mail/mailer.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { type NoticeRow, takeDueNotices } from "./store.ts";

const BATCH = 50;

export interface DisputeNoticeOptions {
  db: Database;
  mailer: Mailer;
  /** The addresses of a group's owners: the people a dispute's e-mails go to. */
  ownersOf: (groupId: string) => Promise<string[]>;
  /** Where the dashboard is, for the link to the dispute. */
  publicUrl: string;
  clock: Clock;
  log: Logger;
}

/**
 * The owners' e-mails about disputes: one when a dispute opens, one 72 hours before its deadline
 * while nothing is submitted. Each is marked before it is sent, so it goes at most once, whichever
 * instance takes it; a send that fails is logged, not repeated.
 */
export class DisputeNotices {
  constructor(private readonly options: DisputeNoticeOptions) {}

  async sendDue(): Promise<number> {
    const now = this.options.clock.now();
    let sent = 0;
    for (const kind of ["opened", "deadline"] as const) {
      for (const dispute of await takeDueNotices(this.options.db, kind, now, BATCH)) {
        sent += await this.tell(kind, dispute);
      }
    }
    return sent;
  }

  private async tell(kind: "opened" | "deadline", dispute: NoticeRow): Promise<number> {
    const { mailer, log } = this.options;
    const amount = money(dispute.amount, dispute.currency);
    const due = dispute.evidence_due_by?.toISOString() ?? "the processor's deadline";
    const link = `${this.options.publicUrl}/dashboard/disputes/${dispute.id}`;
    const subject =
      kind === "opened"
        ? `A payment of ${amount} was disputed: answer by ${due}`
        : `A dispute of ${amount} is due by ${due}, and nothing has been submitted`;
    const text =
      (kind === "opened"
        ? `The cardholder disputed payment ${dispute.payment_id} (${amount}), reason: ${dispute.reason.replaceAll("_", " ")}.\n`
        : `The dispute of payment ${dispute.payment_id} (${amount}) still waits for your answer.\n`) +
      `Send evidence or accept it before ${due}; after that the processor decides against you.\n\n${link}\n`;
    let sent = 0;
    for (const to of await this.options.ownersOf(dispute.group_id)) {
      try {
        await mailer.send({ to, subject, text });
        sent++;
      } catch (error) {
        log.warn({ err: error, disputeId: dispute.id, kind }, "dispute e-mail not sent");
      }
    }
    return sent;
  }
}
