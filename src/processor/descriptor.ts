// What the service needs to know of a processor to offer it: one descriptor per processor's
// folder, listed once in the catalog. Everything else that names processors (PROCESSOR's values,
// the settings, the sandbox's accounts, the API's enums, the log's hidden headers) reads it.
import type { ProcessorAdapter } from "./port.ts";

/** One environment variable of a processor's. */
export interface ProcessorSetting {
  name: string;
  /** With a real processor the start stops, naming it, while it is unset. */
  required?: boolean;
  /** An http(s) URL, checked at the start. */
  url?: boolean;
  /** Its value when unset, from the service's PUBLIC_URL (a notification URL a signature covers). */
  defaultFrom?: (publicUrl: string) => string;
}

/** A processor's settings by variable name, as read and checked at the start. */
export type ProcessorSettings = Readonly<Record<string, string | undefined>>;

export interface AdapterContext {
  /** Its settings; in sandbox mode the sandbox's accounts fill what is unset. */
  settings: ProcessorSettings;
  /** Where its API is: the sandbox's URL in sandbox mode unless a setting says otherwise. */
  apiUrl: string | undefined;
  /** The URL this service takes the processor's events at, as the processor posts them. */
  intakeUrl: () => string | undefined;
  /** A line for the operator while the processor does not answer (the start goes on). */
  warn: (message: string, reason: string) => void;
}

/** A value the sandbox's account of a processor has when its setting is unset: made once per installation. */
export interface SandboxAccountValue {
  setting: string;
  /** The installation secret it is kept under; unset: a fixed value (not a secret). */
  keptAs?: string;
  make: () => string;
}

export interface ProcessorDescriptor {
  /** The name payments carry in their `processor` column, PROCESSOR lists and the intake path has. */
  name: string;
  /** The name people read: "Stripe". */
  title: string;
  settings: readonly ProcessorSetting[];
  /** The setting that points its API elsewhere (the sandbox, a test double). */
  apiUrlSetting?: string;
  /** Headers of its requests to us that carry a secret or a signature: never logged. */
  hiddenHeaders: readonly string[];
  /**
   * Its adapter on its own SDK. Loaded when the processor is enabled, so an installation pays for
   * the SDKs it uses only.
   */
  makeAdapter(context: AdapterContext): Promise<ProcessorAdapter>;
  /** How the built-in sandbox stands in for it; absent: PROCESSOR=sandbox leaves it out. */
  sandbox?: {
    accounts: readonly SandboxAccountValue[];
    /** The emulator's name in the sandbox. */
    emulator: string;
  };
}

/** The catalog's names, in its order. */
export const namesOf = (catalog: readonly ProcessorDescriptor[]): string[] =>
  catalog.map((descriptor) => descriptor.name);
