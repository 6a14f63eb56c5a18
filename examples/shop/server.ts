import { Checkout } from "@checkout-service/client";
import { buildShop } from "./shop.ts";

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) {
    console.error(`example shop: set ${name} (see README.md)`);
    process.exit(1);
  }
  return value;
};

const port = Number(process.env.SHOP_PORT ?? 4242);
const publicUrl = process.env.SHOP_URL ?? `http://localhost:${port}`;
const checkout = new Checkout({
  baseUrl: process.env.CHECKOUT_URL ?? "http://localhost:3000",
  publicKey: required("PUBLIC_KEY"),
  secretKey: required("SECRET_KEY"),
});
const shop = buildShop({
  checkout,
  webhookSecret: required("WEBHOOK_SECRET"),
  publicUrl: () => publicUrl,
  // On a laptop `checkout listen --forward-to` brings the webhooks; deployed, set SEND_WEBHOOK_URL=true.
  sendWebhookUrl: process.env.SEND_WEBHOOK_URL === "true",
});
await shop.listen({ port, host: "127.0.0.1" });
console.log(`Mug shop on ${publicUrl}`);
