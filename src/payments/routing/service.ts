import { type AuditEntry, insertAuditEntry } from "../../platform/audit/store.ts";
import type { Database } from "../../platform/db/database.ts";
import { DomainError, notFound } from "../../platform/errors/domain-error.ts";
import { CURRENCIES, type Currency } from "../../platform/format/money.ts";
import { UUID_PATTERN } from "../../platform/format/uuid.ts";
import type { ProcessorAdapter, ProcessorName } from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import { GroupCache } from "../core/group-cache.ts";
import {
  type GroupRouting,
  groupExists,
  listRoutes,
  loadGroupRouting,
  ROUTES_CHANNEL,
  type RouteRow,
  replaceRoutes,
} from "./store.ts";

/** One route as the admin API takes and answers it. */
export type ProcessorRoute = {
  currency?: Currency;
  processors: ProcessorName[];
};

/** A group's routes as the admin API shows them, with the route a group without routes follows. */
export type GroupRoutes = {
  groupId: string;
  routes: ProcessorRoute[];
  defaultRoute: ProcessorName[];
};

/** At most this many routes per group: one per currency and a last one for the rest is plenty. */
const MAX_ROUTES = 10;

/**
 * Which processors a group's payments go to (docs/api.md, "Processor routing and failover"): the group's routes in order, the first
 * whose currency matches a payment's (or that names none) applies; without routes, the
 * installation's default route (PROCESSOR's order). A processor is tried only if it is enabled
 * and takes the payment's currency.
 */
export class ProcessorRouting {
  readonly cache: GroupCache<GroupRouting>;
  /** The installation's default route (PROCESSOR's order), for groups without routes. */
  readonly defaultRoute: readonly ProcessorName[];

  constructor(
    private readonly db: Database,
    private readonly processors: ProcessorRegistry,
  ) {
    this.cache = new GroupCache(db, ROUTES_CHANNEL, loadGroupRouting);
    this.defaultRoute = processors.defaultRoute;
  }

  /** The currencies an enabled processor takes now (one that reads its currency at start: once read). */
  currenciesOf(name: ProcessorName): Currency[] {
    const adapter = this.processors.find(name);
    return adapter ? CURRENCIES.filter((currency) => adapter.takes(currency)) : [];
  }

  async get(groupId: string): Promise<GroupRoutes> {
    if (!UUID_PATTERN.test(groupId) || !(await groupExists(this.db, groupId))) throw notFound("Group");
    const routes = (await listRoutes(this.db, groupId)).map(toRoute);
    return { groupId, routes, defaultRoute: [...this.defaultRoute] };
  }

  /** Replaces the group's routes (an empty list: back to the default), audited with the change. */
  async set(
    groupId: string,
    routes: readonly { currency?: string | undefined; processors: readonly string[] }[],
    audit: (routes: ProcessorRoute[]) => AuditEntry,
  ): Promise<GroupRoutes> {
    if (!UUID_PATTERN.test(groupId)) throw notFound("Group");
    const checked = routes.map((route, index) => this.checked(route, index));
    if (checked.length > MAX_ROUTES) {
      throw new DomainError("INVALID_REQUEST", `routes: at most ${MAX_ROUTES} routes per group`);
    }
    const rows = checked.map((route) => ({ currency: route.currency ?? null, processors: route.processors }));
    await this.db.transaction(async (tx) => {
      if (!(await replaceRoutes(tx, groupId, rows))) throw notFound("Group");
      await insertAuditEntry(tx, audit(checked));
    });
    this.cache.forget(groupId);
    return { groupId, routes: checked, defaultRoute: [...this.defaultRoute] };
  }

  /**
   * The processors to try for a payment of the group, in order, each enabled and taking the
   * currency; and the group's name, which a checkout's line item falls back on.
   */
  async candidates(
    groupId: string,
    currency: Currency,
  ): Promise<{ groupName: string; processors: ProcessorAdapter[] }> {
    const { groupName, routes } = await this.cache.get(groupId);
    const route = routes.find((each) => each.currency === null || each.currency === currency);
    const names = route ? route.processors : this.processors.defaultRoute;
    const processors = names.flatMap((name) => {
      const adapter = this.processors.find(name);
      return adapter?.takes(currency) ? [adapter] : [];
    });
    return { groupName, processors };
  }

  private checked(
    route: { currency?: string | undefined; processors: readonly string[] },
    index: number,
  ): ProcessorRoute {
    const currency = route.currency?.toLowerCase();
    if (currency !== undefined && !(CURRENCIES as readonly string[]).includes(currency)) {
      throw new DomainError(
        "INVALID_REQUEST",
        `routes[${index}].currency must be one of ${CURRENCIES.join(", ")}`,
      );
    }
    if (route.processors.length === 0) {
      throw new DomainError(
        "INVALID_REQUEST",
        `routes[${index}].processors must name at least one processor`,
      );
    }
    const enabled = this.processors.defaultRoute;
    for (const name of route.processors) {
      if (!(enabled as readonly string[]).includes(name)) {
        throw new DomainError(
          "INVALID_REQUEST",
          `routes[${index}].processors: "${name}" is not enabled here (enabled: ${enabled.join(", ")})`,
        );
      }
    }
    // A route for one currency that none of its processors takes would refuse every such create.
    if (
      currency !== undefined &&
      !route.processors.some((name) => this.processors.of(name).takes(currency as Currency))
    ) {
      throw new DomainError(
        "INVALID_REQUEST",
        `routes[${index}]: no processor of ${route.processors.join(", ")} takes ${currency.toUpperCase()}`,
      );
    }
    return {
      ...(currency !== undefined && { currency: currency as Currency }),
      processors: [...new Set(route.processors)] as ProcessorName[],
    };
  }
}

const toRoute = (row: RouteRow): ProcessorRoute => ({
  ...(row.currency !== null && { currency: row.currency as Currency }),
  processors: row.processors as ProcessorName[],
});
