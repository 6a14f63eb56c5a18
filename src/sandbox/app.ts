import Fastify, { type FastifyInstance } from "fastify";
import qs from "qs";
import type { EmulatorFactory, EmulatorSettings } from "./emulator.ts";
import { EventSender } from "./events.ts";
import { FaultPlayer } from "./faults.ts";
import { forgetCustomers } from "./forget.ts";
import { escapeHtml, sendSandboxPage as sendPage } from "./page.ts";
import { type CheckoutView, type ProcessorSimulation, SandboxError, TEST_CARDS } from "./simulation.ts";
import { squareEmulator } from "./square/emulator.ts";
import {
  type CheckoutFault,
  type RefundFault,
  type SandboxProcessor,
  SandboxState,
  type SandboxStore,
} from "./state.ts";
import { stripeEmulator } from "./stripe/emulator.ts";

/** The processors the sandbox can stand in for, by the name their emulator goes by. */
export const EMULATORS: Readonly<Record<SandboxProcessor, EmulatorFactory>> = {
  stripe: stripeEmulator,
  square: squareEmulator,
};

export interface SandboxOptions {
  emulators: {
    name: SandboxProcessor;
    /** The account it accepts and signs with, by the processor's setting names. */
    settings: EmulatorSettings;
    /** Where its signed events go: the service's intake (the URL a signature may cover). */
    eventsUrl: () => string | undefined;
  }[];
  logLevel?: string;
  eventRetryDelaysMs?: number[];
  /** Where objects are kept across restarts; without one the sandbox forgets everything when stopped. */
  store?: SandboxStore;
  /** How long a `delay` fault holds the answer (a processor's slowness): 60 s unless a test says. */
  faultDelayMs?: number;
}

const REFUND_FAULT_MODES = ["drop_response", "error_500", "delay"] as const;
const CHECKOUT_FAULT_MODES = [...REFUND_FAULT_MODES, "outage"] as const;

export interface Sandbox {
  app: FastifyInstance;
  state: SandboxState;
  /** The processor whose checkout, payment or dispute this id is. */
  simulationOf(id: string): ProcessorSimulation | undefined;
  /** The processor's own erasure: these customers leave its objects and recorded requests. */
  forgetCustomers(emails: readonly string[]): Promise<void>;
}

function checkoutPage(view: CheckoutView, error?: string): string {
  const amount = (view.amount / 100).toFixed(2);
  return `<h1>Sandbox checkout</h1>
<p id="line-item">${escapeHtml(view.lineItem)}</p>
<p>Pay <strong>${escapeHtml(amount)} ${escapeHtml(view.currency.toUpperCase())}</strong>${
    view.customerEmail ? ` as ${escapeHtml(view.customerEmail)}` : ""
  }.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/checkout/${escapeHtml(view.id)}">
<label for="card">Card number</label>
<input id="card" name="card" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
<button type="submit">Pay</button>
</form>
<p><small>Test cards: 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined; 4000 0000 0000 5126 pays, and its refunds fail.</small></p>
<p><a id="back" href="${escapeHtml(view.back.url)}">${escapeHtml(view.back.label)}</a></p>`;
}

const faultSchema = (modes: readonly string[]) => ({
  type: "object",
  required: ["mode"],
  properties: {
    mode: { type: "string", enum: [...modes] },
    count: { type: "integer", minimum: 1, maximum: 1000 },
  },
});

/**
 * Processors speaking the parts of Stripe's and Square's APIs the service uses, so their real
 * SDKs run unchanged; one test page for both, and the simulation and fault endpoints.
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const app = Fastify({
    logger: {
      level: options.logLevel ?? "info",
      name: "sandbox",
      // Readable lines on a terminal, like the service's; JSON lines everywhere else.
      ...(process.stdout.isTTY === true && {
        transport: {
          target: "pino-pretty",
          options: { translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname" },
        },
      }),
    },
    bodyLimit: 256 * 1024,
  });
  const state = new SandboxState(options.store);
  await state.load();
  const faults = new FaultPlayer(state, options.faultDelayMs ?? 60_000);
  const sender = (
    targetUrl: () => string | undefined,
    sign: (payload: string, url: string) => Record<string, string>,
  ) =>
    new EventSender({
      targetUrl,
      sign,
      log: app.log,
      ...(options.eventRetryDelaysMs && { retryDelaysMs: options.eventRetryDelaysMs }),
    });
  const senders: EventSender[] = [];
  const emulators = options.emulators.map(({ name, settings, eventsUrl }) =>
    EMULATORS[name]({
      state,
      faults,
      settings,
      events: (sign) => {
        const events = sender(eventsUrl, sign);
        senders.push(events);
        return events;
      },
    }),
  );
  const simulations = emulators.map((emulator) => emulator.simulation);
  const simulationOf = (id: string) => simulations.find((simulation) => simulation.owns(id));
  const simulationFor = (id: string): ProcessorSimulation => {
    const simulation = simulationOf(id);
    if (!simulation) throw new SandboxError(404, `No such object: '${id}'`);
    return simulation;
  };
  const viewOf = (id: string) =>
    simulations.map((simulation) => simulation.checkoutView(id)).find((view) => view !== undefined);

  // Stripe's API and the test page's form both post form-encoded bodies, nested the way Stripe's are.
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string" },
    (_request, body, done) => {
      done(null, qs.parse(body as string, { depth: 5, arrayLimit: 100 }));
    },
  );
  app.addHook("preClose", async () => faults.releaseAll());
  app.addHook("onClose", async () => {
    await Promise.all(senders.map((events) => events.close()));
  });
  // Every change is stored before its request is answered.
  app.addHook("onSend", async () => state.flush());
  app.setErrorHandler((error, request, reply) => {
    const statusCode =
      error instanceof SandboxError
        ? error.statusCode
        : ((error as { statusCode?: number }).statusCode ?? 500);
    if (statusCode >= 500) request.log.error({ err: error }, "sandbox error");
    return reply.code(statusCode).send({ error: { message: (error as Error).message } });
  });

  for (const emulator of emulators) emulator.registerApi(app);

  // --- Hosted test checkout page, for either processor's checkout ---------------------------
  app.get<{ Params: { id: string } }>("/checkout/:id", async (request, reply) => {
    const view = viewOf(request.params.id);
    if (!view) return sendPage(reply, 404, "Not found", "<h1>This checkout page does not exist</h1>");
    if (view.status !== "open") {
      return sendPage(reply, 410, "Closed", `<h1>This checkout is ${escapeHtml(view.status)}</h1>`);
    }
    return sendPage(reply, 200, "Sandbox checkout", checkoutPage(view));
  });

  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>(
    "/checkout/:id",
    async (request, reply) => {
      const view = viewOf(request.params.id);
      if (view?.status !== "open") {
        return sendPage(reply, 410, "Closed", "<h1>This checkout is no longer open</h1>");
      }
      const given = request.body?.card;
      const card = (typeof given === "string" ? given : "").replace(/[\s-]/g, "");
      const outcome = TEST_CARDS[card as keyof typeof TEST_CARDS];
      if (!outcome) {
        return sendPage(
          reply,
          400,
          "Sandbox checkout",
          checkoutPage(view, "Use a sandbox test card number."),
        );
      }
      simulationFor(view.id).attempt(view.id, outcome, card);
      if (outcome === "failed") {
        return sendPage(reply, 402, "Sandbox checkout", checkoutPage(view, "Your card was declined."));
      }
      return reply.redirect(view.successUrl, 303);
    },
  );

  // --- Simulation (JSON, no auth): what a real customer, bank or dispute would cause -------
  app.post<{ Params: { id: string }; Body: { outcome?: string; card?: string; silent?: boolean } }>(
    "/sandbox/sessions/:id/complete",
    {
      schema: {
        body: {
          type: "object",
          required: ["outcome"],
          properties: {
            outcome: { type: "string", enum: ["succeeded", "failed"] },
            card: { type: "string", maxLength: 19 },
            silent: { type: "boolean" },
          },
        },
      },
    },
    async (request) =>
      simulationFor(request.params.id).attempt(
        request.params.id,
        request.body.outcome as "succeeded" | "failed",
        request.body.card,
        request.body.silent === true,
      ),
  );
  app.delete<{ Params: { id: string } }>("/sandbox/sessions/:id", async (request) => {
    simulationFor(request.params.id).forgetCheckout(request.params.id);
    return { id: request.params.id, deleted: true };
  });
  app.post<{ Params: { id: string }; Body: { amount?: number; silent?: boolean } | undefined }>(
    "/sandbox/payment_intents/:id/refund",
    {
      schema: {
        body: {
          type: ["object", "null"],
          properties: { amount: { type: "integer", minimum: 1 }, silent: { type: "boolean" } },
        },
      },
    },
    async (request) =>
      simulationFor(request.params.id).refund(
        request.params.id,
        request.body?.amount,
        request.body?.silent === true,
      ),
  );
  app.post<{
    Body: {
      processor?: SandboxProcessor;
      checkouts?: { mode: CheckoutFault["mode"]; count?: number };
      refunds?: { mode: RefundFault["mode"]; count?: number };
      disputes?: { mode: RefundFault["mode"]; count?: number };
    };
  }>(
    "/sandbox/faults",
    {
      schema: {
        body: {
          type: "object",
          minProperties: 1,
          anyOf: [{ required: ["checkouts"] }, { required: ["refunds"] }, { required: ["disputes"] }],
          properties: {
            processor: { type: "string", enum: Object.keys(EMULATORS) },
            checkouts: faultSchema(CHECKOUT_FAULT_MODES),
            refunds: faultSchema(REFUND_FAULT_MODES),
            disputes: faultSchema(REFUND_FAULT_MODES),
          },
        },
      },
    },
    async (request) => {
      const processor = request.body.processor ?? "stripe";
      const faults = state.faults[processor];
      const { checkouts, refunds, disputes } = request.body;
      if (checkouts) faults.checkouts = { mode: checkouts.mode, remaining: checkouts.count ?? 1 };
      if (refunds) faults.refunds = { mode: refunds.mode, remaining: refunds.count ?? 1 };
      if (disputes) faults.disputes = { mode: disputes.mode, remaining: disputes.count ?? 1 };
      return {
        processor,
        ...faults,
        // An outage has no count: it lasts until DELETE /sandbox/faults, and says so.
        ...(faults.checkouts?.mode === "outage" && { checkouts: { mode: "outage", until: "cleared" } }),
      };
    },
  );
  app.delete("/sandbox/faults", async () => {
    for (const faults of Object.values(state.faults)) {
      faults.checkouts = null;
      faults.refunds = null;
      faults.disputes = null;
    }
    return { checkouts: null, refunds: null, disputes: null };
  });
  app.post<{
    Params: { id: string };
    Body: { silent?: boolean; reason?: string; evidenceDueBy?: string } | undefined;
  }>(
    "/sandbox/payment_intents/:id/dispute",
    {
      schema: {
        body: {
          type: ["object", "null"],
          properties: {
            silent: { type: "boolean" },
            reason: { type: "string", pattern: "^[A-Za-z_]{1,64}$" },
            evidenceDueBy: { type: "string", format: "date-time" },
          },
        },
      },
    },
    async (request) =>
      simulationFor(request.params.id).dispute(request.params.id, request.body?.silent === true, {
        reason: request.body?.reason,
        evidenceDueBy: request.body?.evidenceDueBy ? new Date(request.body.evidenceDueBy) : undefined,
      }),
  );
  app.post<{ Params: { id: string }; Body: { outcome: string; silent?: boolean } }>(
    "/sandbox/disputes/:id/close",
    {
      schema: {
        body: {
          type: "object",
          required: ["outcome"],
          properties: { outcome: { type: "string", enum: ["won", "lost"] }, silent: { type: "boolean" } },
        },
      },
    },
    async (request) =>
      simulationFor(request.params.id).closeDispute(
        request.params.id,
        request.body.outcome as "won" | "lost",
        request.body.silent === true,
      ),
  );
  app.get("/sandbox/requests", async () => ({ data: state.requests }));

  return {
    app,
    state,
    simulationOf,
    async forgetCustomers(emails) {
      forgetCustomers(state, emails);
      await state.flush();
    },
  };
}
