import { randomBytes } from "node:crypto";
import type { ProcessorDescriptor } from "../descriptor.ts";

export const stripe: ProcessorDescriptor = {
  name: "stripe",
  title: "Stripe",
  settings: [
    { name: "STRIPE_SECRET_KEY", required: true },
    { name: "STRIPE_WEBHOOK_SECRET", required: true },
    { name: "STRIPE_API_URL", url: true },
  ],
  apiUrlSetting: "STRIPE_API_URL",
  hiddenHeaders: ["stripe-signature"],
  async makeAdapter({ settings, apiUrl }) {
    const { stripeAdapter } = await import("./adapter.ts");
    return stripeAdapter({
      secretKey: settings.STRIPE_SECRET_KEY ?? "",
      webhookSecret: settings.STRIPE_WEBHOOK_SECRET ?? "",
      apiUrl,
    });
  },
  sandbox: {
    emulator: "stripe",
    accounts: [
      {
        setting: "STRIPE_SECRET_KEY",
        keptAs: "sandbox_api_key",
        make: () => `sk_test_${randomBytes(18).toString("base64url")}`,
      },
      {
        setting: "STRIPE_WEBHOOK_SECRET",
        keptAs: "sandbox_webhook_secret",
        make: () => `whsec_${randomBytes(32).toString("base64")}`,
      },
    ],
  },
};
