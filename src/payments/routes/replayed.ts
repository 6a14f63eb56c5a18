import type { FastifyReply } from "fastify";

/** An idempotent answer given again says so. */
export function replayedHeader(reply: FastifyReply, answer: { replayed: boolean }): void {
  if (answer.replayed) reply.header("idempotent-replayed", "true");
}
