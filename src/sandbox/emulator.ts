// One emulated processor: its money movements (the simulation the shared test page and endpoints
// drive) and its REST API on the sandbox's app. The sandbox runs the emulators it is asked for.
import type { FastifyInstance } from "fastify";
import type { EventSender } from "./events.ts";
import type { FaultPlayer } from "./faults.ts";
import type { ProcessorSimulation } from "./simulation.ts";
import type { SandboxState } from "./state.ts";

/** The account an emulator accepts and signs with, by the processor's own setting names. */
export type EmulatorSettings = Readonly<Record<string, string | undefined>>;

export interface EmulatorContext {
  state: SandboxState;
  faults: FaultPlayer;
  settings: EmulatorSettings;
  /** A sender of signed events to the service, closed with the sandbox. */
  events: (sign: (payload: string, targetUrl: string) => Record<string, string>) => EventSender;
}

export interface Emulator {
  simulation: ProcessorSimulation;
  registerApi(app: FastifyInstance): void;
}

export type EmulatorFactory = (context: EmulatorContext) => Emulator;

/** A setting the emulator cannot run without. */
export function requiredSetting(settings: EmulatorSettings, name: string): string {
  const value = settings[name];
  if (!value) throw new Error(`the sandbox's emulator needs ${name}`);
  return value;
}
