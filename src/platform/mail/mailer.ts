// Outgoing e-mail (invites, password resets, receipts, owners' notices) through the SMTP server of
// SMTP_URL, with nodemailer; or, for someone trying the service, into MAIL_DIR as .eml files.
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Transporter } from "nodemailer";

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
  /** Referenced from the HTML part as `cid:…`: the image travels with the mail, never fetched. */
  cid: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative to `text`; mail clients that show no HTML show the text. */
  html?: string;
  replyTo?: string;
  attachments?: MailAttachment[];
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface MailSettings {
  smtpUrl: string | undefined;
  mailDir: string | undefined;
  smtpFrom: string;
}

/** Whether the installation can send e-mail at all. */
export const canMail = (settings: MailSettings): boolean =>
  settings.smtpUrl !== undefined || settings.mailDir !== undefined;

/** The mailer the settings name, or undefined when there is none. */
export function configuredMailer(settings: MailSettings): Mailer | undefined {
  if (settings.smtpUrl) return nodemailerMailer(settings.smtpFrom, { url: settings.smtpUrl });
  if (settings.mailDir) return nodemailerMailer(settings.smtpFrom, { dir: settings.mailDir });
  return undefined;
}

/**
 * One mailer over nodemailer: SMTP_URL's server, or its stream transport writing each message as
 * it would have been sent, one .eml file each (any mail program opens them).
 */
function nodemailerMailer(from: string, to: { url: string } | { dir: string }): Mailer {
  // nodemailer is loaded by the first message, not at start (the settings were checked by the config).
  let transport: Promise<Transporter> | undefined;
  return {
    async send(message) {
      transport ??= import("nodemailer").then(({ default: nodemailer }) =>
        "url" in to
          ? nodemailer.createTransport(to.url)
          : nodemailer.createTransport({ streamTransport: true, buffer: true }),
      );
      const sent = await (await transport).sendMail({ from, ...message });
      if ("dir" in to) {
        await mkdir(to.dir, { recursive: true, mode: 0o700 });
        const name = `${new Date().toISOString().replaceAll(":", "-")}-${randomUUID().slice(0, 8)}.eml`;
        await writeFile(join(to.dir, name), sent.message as Buffer, { mode: 0o600 });
      }
    },
  };
}
