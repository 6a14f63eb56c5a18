// Outgoing e-mail (invites, password resets) through the SMTP server of SMTP_URL, with nodemailer.
import type { Transporter } from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** SMTP_URL (smtp:// or smtps://, credentials in the URL) and the From address. */
export function smtpMailer(smtpUrl: string, from: string): Mailer {
  // nodemailer is loaded by the first message, not at start (SMTP_URL was checked by the config).
  let transport: Promise<Transporter> | undefined;
  return {
    async send(message) {
      transport ??= import("nodemailer").then(({ default: nodemailer }) =>
        nodemailer.createTransport(smtpUrl),
      );
      await (await transport).sendMail({ from, ...message });
    },
  };
}
