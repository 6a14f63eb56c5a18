import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { type Branding, MAX_LOGO_BYTES } from "../../merchants/branding/service.ts";
import { DomainError } from "../../platform/errors/domain-error.ts";
import { auditBy } from "../kit/audit.ts";
import { type CustomerBrand, sendCustomerPage } from "../kit/customer.ts";
import { html } from "../kit/html.ts";
import { csrfField, layout, sendHtml, setFlash } from "../kit/layout.ts";
import { acceptMultipart, type FormFile, isFormFile } from "../kit/multipart.ts";
import { merchantOf } from "./common.ts";
import { can, ensureAllowed } from "./permissions.ts";

/** What the branding form posts (multipart: it carries the logo). */
interface BrandingForm {
  displayName?: string;
  brandColor?: string;
  logo?: FormFile | string;
  removeLogo?: string;
  receipts?: string;
  replyTo?: string;
}

const dataUrlOf = (file: FormFile) => `data:${file.declaredType};base64,${file.bytes.toString("base64")}`;

/** The sample a preview shows: a payment link's page as the customer sees it. */
const SAMPLE = html`<div class="card"><h1>Two loaves of bread</h1><p class="muted">Fresh this morning.</p>
<p class="price">12.50 USD</p><label for="email">Your e-mail</label><input id="email" type="email" placeholder="name@example.com">
<button type="button">Pay 12.50 USD</button></div>`;

/**
 * /dashboard/branding: the name, colour and logo customers see, a preview of their page (the
 * form's Preview button shows unsaved values in the frame, without script), and receipts.
 */
const brandingPages: FastifyPluginAsync<{ branding: Branding; canMail: boolean }> = async (
  app,
  { branding, canMail },
) => {
  // Large enough for the largest logo allowed and the form's few fields.
  acceptMultipart(app, MAX_LOGO_BYTES + 16 * 1024);

  const render = async (request: FastifyRequest, reply: FastifyReply, error?: string) => {
    const principal = merchantOf(request);
    const manage = can(principal, "manage_branding");
    const current = await branding.get(principal.groupId);
    const brand = await branding.brand(principal.groupId);
    const disabled = manage ? "" : html` disabled`;
    const body = html`<h1>Branding</h1>
<p class="muted">What your customers see on your payment links, the pages after paying, at the processor (the line item says "Payment to ${brand.name}" when a payment has no description) and in receipts.</p>
<div class="grid">
<form method="post" action="/dashboard/branding" enctype="multipart/form-data" class="card" id="branding-form">${csrfField(reply)}
<label for="displayName">Name customers see</label><input id="displayName" name="displayName" maxlength="200" value="${current.displayName ?? ""}" placeholder="${brand.name}"${disabled}>
<label for="brandColor">Colour</label><input id="brandColor" name="brandColor" type="color" value="${current.brandColor ?? "#3454d1"}"${disabled}>
<label for="logo">Logo (PNG or JPEG, at most ${Math.floor(MAX_LOGO_BYTES / 1024)} KB)</label><input id="logo" name="logo" type="file" accept="image/png,image/jpeg"${disabled}>
${current.logoUrl ? html`<p><img class="logo-current" src="${new URL(current.logoUrl).pathname}${new URL(current.logoUrl).search}" alt="Current logo" height="40"></p><label><input type="checkbox" name="removeLogo" value="true"${disabled}> Remove the logo</label>` : ""}
<label><input type="checkbox" name="receipts" value="true"${current.receipts ? html` checked` : ""}${canMail && manage ? "" : html` disabled`}> E-mail a receipt to customers when they pay and for each refund</label>
<label for="replyTo">Replies to receipts go to</label><input id="replyTo" name="replyTo" type="email" maxlength="254" value="${current.replyTo ?? ""}" placeholder="help@your-shop.example"${disabled}>
<p class="muted">Your support address: a customer who answers a receipt writes to you. Empty: replies go nowhere.</p>
${canMail ? "" : html`<p class="muted">Receipts need e-mail: the operator sets SMTP_URL (or MAIL_DIR, trying the service with the sandbox processor).</p>`}
${manage ? html`<p><button type="submit">Save</button> <button type="submit" class="secondary" formaction="/dashboard/branding/preview" formtarget="preview">Preview</button></p>` : html`<p class="muted">Owners and developers change the branding.</p>`}
</form>
<div><h2>Preview</h2><iframe name="preview" title="Preview of a customer page" src="/dashboard/branding/preview" class="preview" width="420" height="520"></iframe></div>
</div>`;
    return sendHtml(
      reply,
      error ? 400 : 200,
      layout(request, reply, { audience: "dashboard", title: "Branding", body, error }),
    );
  };

  app.get("/dashboard/branding", async (request, reply) => render(request, reply));

  app.post("/dashboard/branding", async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "manage_branding");
    const form = (request.body ?? {}) as BrandingForm;
    const logo = form.removeLogo === "true" ? null : isFormFile(form.logo) ? dataUrlOf(form.logo) : undefined;
    const input = {
      displayName: typeof form.displayName === "string" ? form.displayName : undefined,
      brandColor: typeof form.brandColor === "string" ? form.brandColor : undefined,
      logo,
      replyTo: typeof form.replyTo === "string" ? form.replyTo : undefined,
      // An unticked box posts nothing; a disabled one (no SMTP) must not switch receipts off.
      ...(canMail && { receipts: form.receipts === "true" }),
    };
    try {
      await branding.change(principal.groupId, input, () =>
        auditBy(request, principal.groupId, "branding.changed", null, {
          displayName: input.displayName,
          brandColor: input.brandColor,
          replyTo: input.replyTo,
          ...(logo !== undefined && { logo: logo === null ? null : "replaced" }),
          ...(canMail && { receipts: input.receipts }),
        }),
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === "INVALID_REQUEST")
        return render(request, reply, error.message);
      throw error;
    }
    setFlash(request, { kind: "ok", text: "Branding saved." });
    return reply.redirect("/dashboard/branding", 303);
  });

  // The frame of the page above: the saved branding, or (posted by Preview) the form's values.
  const preview = async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = merchantOf(request);
    const saved = await branding.brand(principal.groupId);
    const form = (request.body ?? {}) as BrandingForm;
    const color =
      typeof form.brandColor === "string" && /^#[0-9a-fA-F]{6}$/.test(form.brandColor)
        ? form.brandColor
        : null;
    const brand: CustomerBrand = {
      name: form.displayName?.trim() || saved.name,
      color: color ?? saved.color,
      logoPath:
        form.removeLogo === "true"
          ? null
          : isFormFile(form.logo) && form.logo.bytes.length > 0
            ? previewLogo(form.logo)
            : saved.logoPath,
    };
    return sendCustomerPage(reply, 200, brand, "Preview", SAMPLE, { preview: true });
  };
  app.get("/dashboard/branding/preview", preview);
  app.post("/dashboard/branding/preview", preview);
};

/** An unsaved logo shown in the preview only if its bytes are a PNG or JPEG (as saving checks). */
function previewLogo(file: FormFile): string | null {
  const png = file.bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  const jpeg = file.bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]));
  if (!png && !jpeg) return null;
  return `data:${png ? "image/png" : "image/jpeg"};base64,${file.bytes.toString("base64")}`;
}

export default brandingPages;
