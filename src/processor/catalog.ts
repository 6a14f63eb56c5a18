// Every processor the service offers, in the order PROCESSOR=sandbox routes them. A processor is
// added here and in its own folder, nowhere else.
import { namesOf, type ProcessorDescriptor } from "./descriptor.ts";
import { square } from "./square/descriptor.ts";
import { stripe } from "./stripe/descriptor.ts";

export const PROCESSOR_CATALOG: readonly ProcessorDescriptor[] = [stripe, square];

/** The catalog's processor names: what payments carry and the API's enums list. */
export const PROCESSOR_NAMES: readonly string[] = namesOf(PROCESSOR_CATALOG);

/** A processor's name as people read it ("Stripe"); an unknown name as stored. */
export const processorTitle = (name: string): string =>
  PROCESSOR_CATALOG.find((descriptor) => descriptor.name === name)?.title ?? name;
