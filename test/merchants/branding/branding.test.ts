// A group's branding, judged by the logo's bytes, and shown to its customers (docs/api.md,
// "Branding").
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MAX_LOGO_BYTES } from "../../../src/merchants/branding/service.ts";
import { png } from "../../helpers/images.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString("base64")}`;

describe("branding", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Plain name" });
  });
  after(() => service.close());

  const put = (body: unknown) => service.api(group, "PUT", "/api/v1/branding", body);

  it("starts empty, merges what is given, and clears with null", async () => {
    assert.deepEqual((await service.api(group, "GET", "/api/v1/branding")).body.data, {
      displayName: null,
      brandColor: null,
      logoUrl: null,
      receipts: false,
      replyTo: null,
    });
    assert.equal((await put({ displayName: "Corner Bakery", brandColor: "#1A7F5A" })).status, 200);
    const merged = (await put({ displayName: "Corner Bakery & Café" })).body.data;
    assert.equal(merged.displayName, "Corner Bakery & Café");
    assert.equal(merged.brandColor, "#1a7f5a", "kept, stored lowercase");
    assert.equal((await put({ brandColor: null })).body.data.brandColor, null);
  });

  it("takes a PNG or JPEG judged by its bytes, serves it, and names it in the customer pages", async () => {
    const image = png();
    const answer = await put({ logo: dataUrl("image/png", image) });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const logoUrl = new URL(answer.body.data.logoUrl);
    const served = await fetch(`${service.url}${logoUrl.pathname}${logoUrl.search}`);
    assert.equal(served.headers.get("content-type"), "image/png");
    assert.equal(served.headers.get("x-content-type-options"), "nosniff");
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), image);
    // A JPEG declared as PNG is a JPEG: the bytes decide.
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64)]);
    assert.equal((await put({ logo: dataUrl("image/png", jpeg) })).status, 200);
    const again = await put({});
    const served2 = await fetch(`${service.url}${new URL(again.body.data.logoUrl).pathname}`);
    assert.equal(served2.headers.get("content-type"), "image/jpeg");
  });

  it("refuses SVG, HTML dressed as an image, oversized images, bad colours, with 400 and no change", async () => {
    const before = (await service.api(group, "GET", "/api/v1/branding")).body.data;
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const htmlFile = Buffer.from("<!doctype html><script>alert(1)</script>");
    const big = Buffer.concat([png(), Buffer.alloc(MAX_LOGO_BYTES)]);
    for (const body of [
      { logo: dataUrl("image/svg+xml", svg) },
      { logo: dataUrl("image/png", svg) },
      { logo: dataUrl("image/png", htmlFile) },
      { logo: dataUrl("image/jpeg", htmlFile) },
      { logo: dataUrl("image/png", big) },
      { logo: "https://cdn.example.com/logo.png" },
      { logo: "data:image/png,not-base64" },
      { brandColor: "red" },
      { brandColor: "#12345" },
      { brandColor: "#12345g" },
      { displayName: 42 },
      { receipts: "yes" },
    ]) {
      const answer = await put(body);
      assert.equal(answer.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(answer.body.error.code, "INVALID_REQUEST");
    }
    assert.deepEqual((await service.api(group, "GET", "/api/v1/branding")).body.data, before);
  });

  it("accepts the largest logo allowed: the route's body limit fits it", async () => {
    const largest = Buffer.concat([png(), Buffer.alloc(MAX_LOGO_BYTES - png().length)]);
    const answer = await put({ logo: dataUrl("image/png", largest) });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });

  it("refuses receipts without SMTP_URL or MAIL_DIR, naming both", async () => {
    const answer = await put({ receipts: true });
    assert.equal(answer.status, 400);
    assert.match(answer.body.error.message, /SMTP_URL/);
    assert.match(answer.body.error.message, /MAIL_DIR/);
  });

  it("the line item at the processor and the customer pages carry the display name and colour", async () => {
    await put({ displayName: "Corner Bakery", brandColor: "#1a7f5a" });
    const created = (await service.createPayment(group)).body.data;
    const session = service.sandbox?.state.sessions.get(created.sessionId);
    assert.equal(session?.line_item_name, "Payment to Corner Bakery");
    const withDescription = (await service.createPayment(group, { description: "Two loaves" })).body.data;
    assert.equal(
      service.sandbox?.state.sessions.get(withDescription.sessionId)?.line_item_name,
      "Two loaves",
    );
    const link = (
      await service.api(group, "POST", "/api/v1/payment-links", {
        name: "Bread",
        currency: "usd",
        amount: 400,
      })
    ).body.data;
    const page = String((await service.request("GET", new URL(link.url).pathname)).body);
    assert.match(page, /<span class="merchant">Corner Bakery<\/span>/);
    assert.match(page, /--brand:#1a7f5a/);
    assert.match(page, /<img src="\/branding\/logos\//);
  });
});
