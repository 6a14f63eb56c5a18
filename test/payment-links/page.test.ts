// A payment link's page for customers, the /done page, and bad input on both (docs/api.md,
// "Payment links").
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cheapPasswordHashes, signedInUser } from "../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { smtpListener } from "../helpers/smtp.ts";
import { waitFor } from "../helpers/wait.ts";

const form = (fields: Record<string, string>) => ({
  rawBody: new URLSearchParams(fields).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" },
});

describe("payment links: the customer's page", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  let choose: { linkId: string; url: string };
  let smtp: Awaited<ReturnType<typeof smtpListener>>;
  before(async () => {
    // FALLBACK_URL unset: an unusable merchant URL leads to the payment's /done page.
    smtp = await smtpListener();
    service = await startTestService({ RATE_LIMIT_MAX: "40", FALLBACK_URL: "", SMTP_URL: smtp.url });
    group = await service.createGroup({ name: "Corner Bakery" });
    choose = (
      await service.api(group, "POST", "/api/v1/payment-links", {
        name: "Pay what you like",
        currency: "usd",
        minAmount: 500,
        maxAmount: 20000,
      })
    ).body.data;
  });
  after(async () => {
    await service.close();
    await smtp.close();
  });

  const pathOf = (link: { url: string }) => new URL(link.url).pathname;
  const linkPayments = async (linkId: string) =>
    (await service.api(group, "GET", `/api/v1/payments?paymentLinkId=${linkId}`)).body.data.payments.length;

  it("shows the merchant, what is paid for, an amount and an e-mail field, under a strict policy", async () => {
    const page = await service.request("GET", pathOf(choose));
    assert.equal(page.status, 200);
    const text = String(page.body);
    assert.match(text, /<span class="merchant">Corner Bakery<\/span>/);
    assert.match(text, /<h1>Pay what you like<\/h1>/);
    assert.match(text, /name="amount"/);
    assert.match(text, /name="email"/);
    assert.match(text, /Between 5\.00 USD and 200\.00 USD/);
    assert.doesNotMatch(text, /<script/);
    const policy = page.headers.get("content-security-policy") ?? "";
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /style-src 'sha256-[A-Za-z0-9+/=]+'/);
    assert.doesNotMatch(policy, /unsafe-inline/);
  });

  it("re-shows the form with the reason for each bad amount or e-mail, and creates nothing", async () => {
    for (const [fields, reason] of [
      [{ amount: "12,50", email: "a@example.com" }, /Use a dot for cents, e\.g\. 12\.50/],
      [{ amount: "12.505", email: "a@example.com" }, /at most two decimals/],
      [{ amount: "-5", email: "a@example.com" }, /between 5\.00 and 200\.00 USD/],
      [{ amount: "99999999999", email: "a@example.com" }, /between 5\.00 and 200\.00 USD/],
      [{ amount: "4.99", email: "a@example.com" }, /between 5\.00 and 200\.00 USD/],
      [{ amount: "ten", email: "a@example.com" }, /as a number/],
      [{ amount: "12.50", email: "not an address" }, /Enter your e-mail address/],
      [{ amount: "12.50", email: "<script>@x.y" }, /Enter your e-mail address/],
    ] as const) {
      const answer = await service.request("POST", pathOf(choose), form(fields));
      assert.equal(answer.status, 400, JSON.stringify(fields));
      assert.match(String(answer.body), reason, JSON.stringify(fields));
      assert.doesNotMatch(String(answer.body), /<script>@/, "what was typed comes back escaped");
    }
    assert.equal(await linkPayments(choose.linkId), 0);
  });

  it("refuses a control character in the e-mail and a NUL anywhere in the form: 400, the form again, nothing made", async () => {
    const before = await linkPayments(choose.linkId);
    for (const fields of [
      { amount: "12.50", email: "a\u0001b@example.com" },
      { amount: "12.50", email: "ab@example.com\u007f" },
      { amount: "12.50", email: "a\u0000b@example.com" },
      { amount: "12.5\u0000", email: "ab@example.com" },
      { amount: "12.50", email: "ab@example.com", key: "k\u0000" },
      { amount: "12.50", email: "ab@example.com", note: "\u0000" },
    ]) {
      const answer = await service.request("POST", pathOf(choose), form(fields));
      assert.equal(answer.status, 400, JSON.stringify(fields));
      assert.match(String(answer.body), /name="email"/, "the form again");
    }
    assert.equal(await linkPayments(choose.linkId), before);
  });

  it("takes the customer's amount in units, to the processor's page; after paying, the /done page", async () => {
    const answer = await service.request(
      "POST",
      pathOf(choose),
      form({ amount: "12.5", email: "carla.jones@example.com" }),
    );
    assert.equal(answer.status, 303);
    const payment = (await service.api(group, "GET", `/api/v1/payments?paymentLinkId=${choose.linkId}`)).body
      .data.payments[0];
    assert.equal(payment.amount, 1250);
    const session = service.sandbox?.state.sessions.get(payment.processorSessionId);
    assert.equal(session?.line_item_name, "Payment to Corner Bakery", "the line item names the merchant");
    await service.sandboxPost(`/sandbox/sessions/${payment.processorSessionId}/complete`, {
      outcome: "succeeded",
    });
    const token = new URL(String(session?.success_url)).pathname.split("/").pop();
    const back = await service.request("GET", `/return/${token}`);
    assert.equal(back.status, 303);
    assert.equal(back.headers.get("location"), `${group.safeSites[0]?.url}/done/${token}`);
    const done = await service.request("GET", `/done/${token}`);
    assert.equal(done.status, 200);
    assert.match(String(done.body), /Payment received/);
    assert.match(String(done.body), /Corner Bakery has received your payment of 12\.50 USD/);
    // The page's address is the one in paymentUrl, which merchants store and customers share.
    const receipts = await service.api(group, "PUT", "/api/v1/branding", { receipts: true });
    assert.equal(receipts.status, 200, JSON.stringify(receipts.body));
    const masked = String((await service.request("GET", `/done/${token}`)).body);
    assert.match(masked, /A receipt is on its way to c•••@example\.com/);
    assert.doesNotMatch(masked, /carla/);
  });

  it("a payment through a link carries the link's name: the dashboard, /done and the receipt", async () => {
    assert.equal((await service.api(group, "PUT", "/api/v1/branding", { receipts: true })).status, 200);
    const answer = await service.request(
      "POST",
      pathOf(choose),
      form({ amount: "9", email: "named@example.com" }),
    );
    assert.equal(answer.status, 303);
    const [payment] = (
      await service.api(group, "GET", `/api/v1/payments?paymentLinkId=${choose.linkId}&limit=1`)
    ).body.data.payments;
    const session = service.sandbox?.state.sessions.get(payment.processorSessionId);
    await service.sandboxPost(`/sandbox/sessions/${payment.processorSessionId}/complete`, {
      outcome: "succeeded",
    });
    const token = new URL(String(session?.success_url)).pathname.split("/").pop();
    await waitFor(async () =>
      (await service.api(group, "GET", `/api/v1/payments/${payment.id}`)).body.data.status === "succeeded"
        ? true
        : undefined,
    );
    assert.match(
      String((await service.request("GET", `/done/${token}`)).body),
      /9\.00 USD for Pay what you like\./,
    );
    const receipt = await waitFor(async () =>
      smtp.messages.find((message) => message.to.includes("named@example.com")),
    );
    assert.match(receipt.body, /For: Pay what you like/);
    const owner = await signedInUser(service, group, "owner@bakery.example", "owner");
    const list = await owner.get("/dashboard/payments");
    assert.match(list.text, /<span class="link-name">Pay what you like<\/span>/);
    const detail = await owner.get(`/dashboard/payments/${payment.id}`);
    assert.match(
      detail.text,
      new RegExp(
        `id="payment-link"><a href="/dashboard/payment-links#link-${choose.linkId}">Pay what you like</a>`,
      ),
    );
  });

  it("the not-paid /done page leads on: back to the open checkout, else to the link's page", async () => {
    const created = await service.createPayment(group);
    const apiToken = new URL(created.body.data.paymentUrl).pathname.split("/").pop();
    const open = String((await service.request("GET", `/done/${apiToken}`)).body);
    assert.match(open, /Not paid/);
    assert.match(open, new RegExp(`<a class="button" href="/pay/${apiToken}">Try again</a>`));

    await service.request("POST", pathOf(choose), form({ amount: "7", email: "again@example.com" }));
    const [payment] = (
      await service.api(group, "GET", `/api/v1/payments?paymentLinkId=${choose.linkId}&limit=1`)
    ).body.data.payments;
    const session = service.sandbox?.state.sessions.get(payment.processorSessionId);
    const token = new URL(String(session?.success_url)).pathname.split("/").pop();
    await service.services.db.query(
      "UPDATE payments SET expires_at = now() - interval '1 minute' WHERE id = $1",
      [payment.id],
    );
    const ended = String((await service.request("GET", `/done/${token}`)).body);
    assert.match(ended, new RegExp(`<a class="button" href="${choose.url}">Start again</a>`));
    assert.doesNotMatch(ended, /Try again/, "its checkout has ended");

    await service.api(group, "PATCH", `/api/v1/payment-links/${choose.linkId}`, { active: false });
    try {
      const closed = String((await service.request("GET", `/done/${token}`)).body);
      assert.doesNotMatch(closed, /class="button"/, "an inactive link is offered to nobody");
      assert.match(closed, /ask Corner Bakery for a new payment link/);
    } finally {
      await service.api(group, "PATCH", `/api/v1/payment-links/${choose.linkId}`, { active: true });
    }
  });

  it("an inactive link answers 410 to GET and POST, and takes no payment", async () => {
    const link = (
      await service.api(group, "POST", "/api/v1/payment-links", {
        name: "Closed",
        currency: "usd",
        amount: 900,
      })
    ).body.data;
    await service.api(group, "PATCH", `/api/v1/payment-links/${link.linkId}`, { active: false });
    const shown = await service.request("GET", pathOf(link));
    assert.equal(shown.status, 410);
    assert.match(String(shown.body), /no longer active/);
    const posted = await service.request("POST", pathOf(link), form({ email: "d@example.com" }));
    assert.equal(posted.status, 410);
    assert.equal(await linkPayments(link.linkId), 0);
  });

  it("an unknown link is a 404 page", async () => {
    const page = await service.request("GET", "/l/AAAAAAAAAAAAAAAAAAAAAA");
    assert.equal(page.status, 404);
    assert.match(String(page.body), /Payment link not found/);
  });

  it("a burst from one address meets the per-address budget: 429 pages, nothing more created", async () => {
    const link = (
      await service.api(group, "POST", "/api/v1/payment-links", {
        name: "Burst",
        currency: "usd",
        amount: 500,
      })
    ).body.data;
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () =>
        service
          .request("POST", pathOf(link), form({ email: "not an address" }))
          .then((answer) => answer.status),
      ),
    );
    const limited = statuses.filter((status) => status === 429).length;
    assert.ok(limited >= 150, `${limited} of 200 limited`);
    assert.ok(statuses.every((status) => status === 400 || status === 429));
    const page = await service.request("GET", pathOf(link));
    assert.equal(page.status, 429);
    assert.match(String(page.body), /Too many requests/);
  });
});

describe("the way back without a usable merchant URL", () => {
  it("leads to the payment's /done page while FALLBACK_URL is unset, and to exactly FALLBACK_URL when set", async () => {
    for (const [fallback, expected] of [
      ["", "done"],
      ["https://fallback.example.com/landing", "https://fallback.example.com/landing"],
    ] as const) {
      const service = await startTestService({ FALLBACK_URL: fallback });
      try {
        const group = await service.createGroup({ name: "Local shop" });
        // localhost is unreachable (not in ALLOWED_PRIVATE_HOSTS): the customer cannot go there.
        const created = await service.createPayment(group, { successUrl: "http://localhost:4242/thanks" });
        const payment = (
          await service.api(group, "GET", `/api/v1/payments/${created.body.data.transactionId}`)
        ).body.data;
        await service.sandboxPost(`/sandbox/sessions/${payment.processorSessionId}/complete`, {
          outcome: "succeeded",
        });
        const token = new URL(created.body.data.paymentUrl).pathname.split("/").pop();
        const back = await service.request("GET", `/return/${token}`);
        const location = back.headers.get("location");
        assert.equal(location, expected === "done" ? `${group.safeSites[0]?.url}/done/${token}` : expected);
      } finally {
        await service.close();
      }
    }
  });
});

describe("a link's form sent twice", () => {
  it("the same values are the same payment; other values under the same form are the form again", async () => {
    const service = await startTestService();
    try {
      const group = await service.createGroup();
      const link = (
        await service.api(group, "POST", "/api/v1/payment-links", { name: "Any", currency: "usd" })
      ).body.data;
      const path = new URL(link.url).pathname;
      const post = (amount: string) =>
        service.request("POST", path, form({ amount, email: "e@example.com", key: "same-form-key-123456" }));
      const first = await post("10.00");
      assert.equal(first.status, 303);
      assert.equal((await post("10.00")).headers.get("location"), first.headers.get("location"));
      const changed = await post("20.00");
      assert.equal(changed.status, 409);
      assert.match(String(changed.body), /press Pay again/);
      const payments = await service.api(group, "GET", `/api/v1/payments?paymentLinkId=${link.linkId}`);
      assert.equal(payments.body.data.payments.length, 1);
    } finally {
      await service.close();
    }
  });
});
