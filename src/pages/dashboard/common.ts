import type { FastifyRequest } from "fastify";
import type { Principal } from "../../accounts/principal.ts";
import { pageSender } from "../kit/layout.ts";

/** The guard has run: a merchant user of one group. */
export function merchantOf(request: FastifyRequest): Principal & { groupId: string } {
  return request.principal as Principal & { groupId: string };
}

export const dashboardPage = pageSender("dashboard");
