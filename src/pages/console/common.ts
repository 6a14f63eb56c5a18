import { pageSender } from "../kit/layout.ts";

export const consolePage = pageSender("operator");
