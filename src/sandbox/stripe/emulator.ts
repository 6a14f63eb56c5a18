import { type EmulatorFactory, requiredSetting } from "../emulator.ts";
import { registerStripeApi } from "./api.ts";
import { signStripe } from "./events.ts";
import { StripePayments } from "./payments.ts";

export const stripeEmulator: EmulatorFactory = ({ state, faults, settings, events }) => {
  const payments = new StripePayments(
    state,
    events(signStripe(requiredSetting(settings, "STRIPE_WEBHOOK_SECRET"))),
  );
  const apiKey = requiredSetting(settings, "STRIPE_SECRET_KEY");
  return {
    simulation: payments,
    registerApi: (app) => registerStripeApi(app, { state, payments, apiKey, faults }),
  };
};
