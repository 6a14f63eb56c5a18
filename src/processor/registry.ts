import type { ProcessorAdapter, ProcessorName } from "./port.ts";

/**
 * The processors this installation talks to, by the name payments carry in their `processor`
 * column. New payments go through their group's route (this installation's order when it has
 * none); every later call goes to the payment's own processor, never routed again.
 */
export class ProcessorRegistry {
  private readonly adapters = new Map<string, ProcessorAdapter>();

  /** The enabled processors in PROCESSOR's order: the route of groups that have none of their own. */
  readonly defaultRoute: readonly ProcessorName[];

  /** `first` and `others` in PROCESSOR's order; there is always at least one. */
  constructor(first: ProcessorAdapter, others: readonly ProcessorAdapter[] = []) {
    for (const adapter of [first, ...others]) this.adapters.set(adapter.name, adapter);
    this.defaultRoute = [...this.adapters.keys()] as ProcessorName[];
  }

  /** The adapter of a stored payment; an unknown name is a configuration error, not input. */
  of(name: string): ProcessorAdapter {
    const adapter = this.adapters.get(name);
    if (!adapter) throw new Error(`no processor adapter named "${name}" is configured`);
    return adapter;
  }

  /** For the intake route: an unknown name in a URL is simply not found. */
  find(name: string): ProcessorAdapter | undefined {
    return this.adapters.get(name);
  }
}
