// docs/api.md on the dashboard: payment links, branding with its preview, the webhook URL; roles as
// everywhere (viewers read, developers and owners change), every change audited.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { png } from "../../helpers/images.ts";
import { cheapPasswordHashes, type PageClient, signedInUser } from "../../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";

describe("the dashboard's merchant settings", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  let owner: PageClient;
  let viewer: PageClient;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Dashboard shop" });
    owner = await signedInUser(service, group, "owner@shop.example", "owner");
    viewer = await signedInUser(service, group, "viewer@shop.example", "viewer");
  });
  after(() => service.close());

  const audited = async (action: string) =>
    (
      await service.services.db.query("SELECT 1 FROM audit_log WHERE group_id = $1 AND action = $2", [
        group.groupId,
        action,
      ])
    ).length;

  it("makes a payment link from a form in units, lists it with its URL and QR code, and deactivates it", async () => {
    await owner.get("/dashboard/payment-links");
    const made = await owner.post("/dashboard/payment-links", {
      name: "Sourdough",
      currency: "usd",
      amount: "12.50",
      description: "One loaf",
    });
    assert.equal(made.status, 303, made.text);
    const page = await owner.get("/dashboard/payment-links");
    assert.match(page.text, /Sourdough/);
    assert.match(page.text, /12\.50 USD/);
    assert.match(page.text, /<svg class="qr"/);
    const url = /value="(http[^"]+\/l\/[A-Za-z0-9_-]+)"/.exec(page.text)?.[1];
    assert.ok(url, "the link's URL is shown to copy");
    const linkId = /id="link-([0-9a-f-]{36})"/.exec(page.text)?.[1];
    const off = await owner.post(`/dashboard/payment-links/${linkId}`, { isActive: "false" });
    assert.equal(off.status, 303);
    assert.equal((await service.request("GET", new URL(url).pathname)).status, 410);
    assert.equal(await audited("payment_link.created"), 1);
    assert.equal(await audited("payment_link.deactivated"), 1);
  });

  it("re-shows the form with the reason for a bad amount, and makes nothing", async () => {
    await owner.get("/dashboard/payment-links");
    const refused = await owner.post("/dashboard/payment-links", {
      name: "Bad",
      currency: "usd",
      amount: "12.505",
    });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /The price must be an amount such as 12\.50/);
    assert.match(refused.text, /value="12\.505"/, "what was typed stays in the form");
    const rows = await service.services.db.query("SELECT 1 FROM payment_links WHERE name = 'Bad'");
    assert.equal(rows.length, 0);
  });

  it("viewers see links and branding but change nothing", async () => {
    const page = await viewer.get("/dashboard/payment-links");
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /New payment link/);
    assert.equal(
      (await viewer.post("/dashboard/payment-links", { name: "No", currency: "usd" })).status,
      403,
    );
    await viewer.get("/dashboard/branding");
    assert.equal((await viewer.postMultipart("/dashboard/branding", { displayName: "No" })).status, 403);
    await viewer.get("/dashboard/developers");
    assert.equal(
      (await viewer.post("/dashboard/developers/webhook-url", { url: "https://x.example.com/h" })).status,
      403,
    );
  });

  it("saves branding with an uploaded logo; refuses an SVG; the preview frames a customer page", async () => {
    await owner.get("/dashboard/branding");
    const saved = await owner.postMultipart(
      "/dashboard/branding",
      { displayName: "Corner Bakery", brandColor: "#1a7f5a", replyTo: "help@bakery.example" },
      { logo: { bytes: png(), type: "image/png", name: "logo.png" } },
    );
    assert.equal(saved.status, 303, saved.text);
    const branding = (await service.api(group, "GET", "/api/v1/branding")).body.data;
    assert.equal(branding.displayName, "Corner Bakery");
    assert.equal(branding.replyTo, "help@bakery.example", "where customers' replies to receipts go");
    assert.match(
      (await owner.get("/dashboard/branding")).text,
      /id="replyTo" name="replyTo" type="email" maxlength="254" value="help@bakery\.example"/,
    );
    assert.equal(branding.brandColor, "#1a7f5a");
    assert.ok(branding.logoUrl);
    await owner.get("/dashboard/branding");
    const svg = await owner.postMultipart(
      "/dashboard/branding",
      {},
      {
        logo: {
          bytes: Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"),
          type: "image/png",
          name: "x.png",
        },
      },
    );
    assert.equal(svg.status, 400);
    assert.match(svg.text, /PNG or JPEG/);
    const preview = await owner.get("/dashboard/branding/preview");
    assert.equal(preview.status, 200);
    assert.match(preview.headers.get("content-security-policy") ?? "", /frame-ancestors 'self'/);
    assert.match(preview.text, /<span class="merchant">Corner Bakery<\/span>/);
    await owner.get("/dashboard/branding");
    const unsaved = await owner.postMultipart("/dashboard/branding/preview", {
      displayName: "Not saved yet",
      brandColor: "#aa0000",
    });
    assert.match(unsaved.text, /Not saved yet/);
    assert.match(unsaved.text, /--brand:#aa0000/);
    assert.equal(
      (await service.api(group, "GET", "/api/v1/branding")).body.data.displayName,
      "Corner Bakery",
    );
    assert.equal(await audited("branding.changed"), 1);
  });

  it("sets the group's webhook URL on the developers page", async () => {
    await owner.get("/dashboard/developers");
    const set = await owner.post("/dashboard/developers/webhook-url", {
      url: "https://shop.example.com/webhooks",
    });
    assert.equal(set.status, 303);
    assert.deepEqual((await service.api(group, "GET", "/api/v1/webhook-settings")).body.data, {
      url: "https://shop.example.com/webhooks",
    });
    await owner.get("/dashboard/developers");
    await owner.post("/dashboard/developers/webhook-url", { url: "javascript:alert(1)" });
    await owner.get("/dashboard/developers");
    await owner.post("/dashboard/developers/webhook-url", { url: "http://192.168.1.20/hooks" });
    const said = await owner.get("/dashboard/developers");
    assert.match(
      said.text,
      /cannot go to http:\/\/192\.168\.1\.20\/hooks: its host is private or unreachable/,
    );
    assert.doesNotMatch(said.text, /Webhooks now go to http:\/\/192/);
    assert.deepEqual((await service.api(group, "GET", "/api/v1/webhook-settings")).body.data, {
      url: "https://shop.example.com/webhooks",
    });
    assert.equal(await audited("webhook_settings.changed"), 1);
  });
});
