import { pageSender } from "../web/layout.ts";

export const consolePage = pageSender("operator");
