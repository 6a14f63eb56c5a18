import { createHmac } from "node:crypto";

/**
 * Standard Webhooks signature: base64 HMAC-SHA256 over `${id}.${timestamp}.${body}` with the key
 * bytes of a `whsec_` secret. During a rotation both secrets sign, space-separated.
 */
export function signWebhook(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
      const signature = createHmac("sha256", key)
        .update(`${messageId}.${timestampSeconds}.${body}`)
        .digest("base64");
      return `v1,${signature}`;
    })
    .join(" ");
}
