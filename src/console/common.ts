import type { FastifyReply, FastifyRequest } from "fastify";
import type { Fragment } from "../web/html.ts";
import { layout, sendHtml } from "../web/layout.ts";

export const consolePage = (
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  body: Fragment,
  statusCode = 200,
) => sendHtml(reply, statusCode, layout(request, reply, { audience: "operator", title, body }));
