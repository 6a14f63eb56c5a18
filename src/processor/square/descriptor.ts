import { randomBytes } from "node:crypto";
import type { ProcessorDescriptor } from "../descriptor.ts";

export const square: ProcessorDescriptor = {
  name: "square",
  title: "Square",
  settings: [
    { name: "SQUARE_ACCESS_TOKEN", required: true },
    { name: "SQUARE_LOCATION_ID", required: true },
    { name: "SQUARE_WEBHOOK_SIGNATURE_KEY", required: true },
    { name: "SQUARE_API_URL", url: true },
    // Square signs the notification URL it posts to: ours as registered there.
    {
      name: "SQUARE_WEBHOOK_URL",
      url: true,
      defaultFrom: (publicUrl) => `${publicUrl}/processor/webhooks/square`,
    },
  ],
  apiUrlSetting: "SQUARE_API_URL",
  hiddenHeaders: ["x-square-hmacsha256-signature"],
  async makeAdapter({ settings, apiUrl, intakeUrl, warn }) {
    // Loaded only where Square is used: its SDK is a large module graph (50 MB of a process).
    const { squareAdapter } = await import("./adapter.ts");
    return squareAdapter({
      accessToken: settings.SQUARE_ACCESS_TOKEN ?? "",
      locationId: settings.SQUARE_LOCATION_ID ?? "",
      webhookSignatureKey: settings.SQUARE_WEBHOOK_SIGNATURE_KEY ?? "",
      webhookUrl: () => intakeUrl() ?? settings.SQUARE_WEBHOOK_URL ?? "",
      apiUrl,
      onLocationError: (error) =>
        warn("could not read the Square location's currency: asking again", error.message),
    });
  },
  sandbox: {
    emulator: "square",
    accounts: [
      {
        setting: "SQUARE_ACCESS_TOKEN",
        keptAs: "sandbox_square_access_token",
        make: () => `EAAAsandbox${randomBytes(24).toString("base64url")}`,
      },
      {
        setting: "SQUARE_WEBHOOK_SIGNATURE_KEY",
        keptAs: "sandbox_square_signature_key",
        make: () => randomBytes(24).toString("base64url"),
      },
      { setting: "SQUARE_LOCATION_ID", make: () => "LSANDBOX" },
    ],
  },
};
