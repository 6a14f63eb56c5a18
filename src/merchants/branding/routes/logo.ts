import type { FastifyPluginAsync } from "fastify";
import { UUID_PATTERN } from "../../../platform/format/uuid.ts";
import type { Branding } from "../service.ts";

/** A group's logo, for its customer pages on any host the service answers on. */
const logoRoute: FastifyPluginAsync<{ branding: Branding }> = async (app, { branding }) => {
  app.get<{ Params: { groupId: string } }>(
    "/branding/logos/:groupId",
    { schema: { hide: true } },
    async (request, reply) => {
      const { groupId } = request.params;
      const found = UUID_PATTERN.test(groupId) ? await branding.logo(groupId) : undefined;
      if (!found) return reply.code(404).type("text/plain; charset=utf-8").send("Not found");
      // Its address carries a digest of the bytes (?v=…): a new logo is a new address.
      return reply
        .type(found.logo_type)
        .header("cache-control", "public, max-age=31536000, immutable")
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .send(found.logo);
    },
  );
};

export default logoRoute;
