// An SMTP server on loopback for the tests of the mail the service sends.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** An SMTP server on loopback that keeps every message it is given. */
export async function smtpListener() {
  const messages: { to: string[]; body: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      let body = "";
      stream.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      stream.on("end", () => {
        messages.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), body });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
