import { type EmulatorFactory, requiredSetting } from "../emulator.ts";
import { registerSquareApi } from "./api.ts";
import { signSquare } from "./events.ts";
import { SquarePayments } from "./payments.ts";

export const squareEmulator: EmulatorFactory = ({ state, faults, settings, events }) => {
  const payments = new SquarePayments(
    state,
    events(signSquare(requiredSetting(settings, "SQUARE_WEBHOOK_SIGNATURE_KEY"))),
  );
  const accessToken = requiredSetting(settings, "SQUARE_ACCESS_TOKEN");
  const locationId = requiredSetting(settings, "SQUARE_LOCATION_ID");
  return {
    simulation: payments,
    registerApi: (app) => registerSquareApi(app, { state, payments, accessToken, locationId, faults }),
  };
};
