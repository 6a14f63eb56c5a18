import type { FastifyReply, FastifyRequest } from "fastify";
import type { CheckoutFault, SandboxState } from "./state.ts";

/**
 * Answers a create (checkout or refund) as its fault says: `error_500` refuses without carrying
 * it out; `drop_response` carries it out and closes the connection unanswered; `delay` carries it
 * out and answers late. No fault: carried out and answered.
 */
export class FaultPlayer {
  // Answers a `delay` fault holds back; released at once when the sandbox stops.
  private readonly delayed = new Set<() => void>();

  constructor(
    private readonly state: SandboxState,
    /** How long a `delay` fault holds the answer: 60 s unless a test says. */
    private readonly delayMs: number,
  ) {}

  async play<T>(
    mode: CheckoutFault["mode"] | null,
    request: FastifyRequest,
    reply: FastifyReply,
    carryOut: () => T | Promise<T>,
    serverError: (reply: FastifyReply, status: number) => FastifyReply,
  ): Promise<T | FastifyReply | undefined> {
    if (mode === "error_500") return serverError(reply, 500);
    if (mode === "outage") return serverError(reply, 503);
    const result = await carryOut();
    if (mode === "drop_response") {
      // Carried out, and the answer lost on the way: the connection closes with nothing said.
      await this.state.flush();
      reply.hijack();
      request.raw.socket.destroy();
      return undefined;
    }
    if (mode === "delay") await this.hold();
    return result;
  }

  private hold(): Promise<void> {
    return new Promise<void>((resolve) => {
      const release = () => {
        clearTimeout(timer);
        this.delayed.delete(release);
        resolve();
      };
      const timer = setTimeout(release, this.delayMs);
      this.delayed.add(release);
    });
  }

  releaseAll(): void {
    for (const release of [...this.delayed]) release();
  }
}
