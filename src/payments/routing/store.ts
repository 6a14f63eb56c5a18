// Every statement on processor_routes: a group's routes, read for creates and replaced whole.
import type { Queryable } from "../../platform/db/database.ts";

/** NOTIFY channel of migration 016's trigger: a group's routes changed. */
export const ROUTES_CHANNEL = "processor_routes_changed";

export interface RouteRow {
  currency: string | null;
  processors: string[];
}

/**
 * What a create reads of a group for its processors: its routes, and the name customers see (its
 * display name, else its name) for the line item. Migration 018 NOTIFYs on a rename too.
 */
export interface GroupRouting {
  groupName: string;
  routes: RouteRow[];
}

export async function loadGroupRouting(q: Queryable, groupId: string): Promise<GroupRouting> {
  const [group] = await q.query<{ name: string }>(
    "SELECT COALESCE(display_name, name) AS name FROM groups WHERE id = $1",
    [groupId],
  );
  return { groupName: group?.name ?? "", routes: await listRoutes(q, groupId) };
}

export function listRoutes(q: Queryable, groupId: string): Promise<RouteRow[]> {
  return q.query<RouteRow>(
    "SELECT currency, processors FROM processor_routes WHERE group_id = $1 ORDER BY position",
    [groupId],
  );
}

/** The group's routes become `routes` (none: the installation's default); false for no such group. */
export async function replaceRoutes(
  q: Queryable,
  groupId: string,
  routes: readonly RouteRow[],
): Promise<boolean> {
  const [group] = await q.query("SELECT 1 FROM groups WHERE id = $1 FOR UPDATE", [groupId]);
  if (!group) return false;
  await q.query("DELETE FROM processor_routes WHERE group_id = $1", [groupId]);
  for (const [position, route] of routes.entries()) {
    await q.query(
      "INSERT INTO processor_routes (group_id, position, currency, processors) VALUES ($1, $2, $3, $4)",
      [groupId, position, route.currency, route.processors],
    );
  }
  return true;
}

export async function groupExists(q: Queryable, groupId: string): Promise<boolean> {
  return (await q.query("SELECT 1 FROM groups WHERE id = $1", [groupId])).length === 1;
}
