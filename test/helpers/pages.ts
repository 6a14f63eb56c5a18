// A cookie-keeping client for the dashboard and console pages, as a browser without JavaScript
// would use them: it reads each form's CSRF token from the page it got and posts it back.
import { after, before } from "node:test";
import { useCheapPasswordHashesInTests } from "../../src/accounts/password.ts";
import type { TestGroup, TestService } from "./service.ts";

export interface PageResponse {
  status: number;
  location: string | null;
  headers: Headers;
  text: string;
}

export const TEST_PASSWORD = "correct horse battery staple";

/**
 * A secret key or webhook secret where a token begins. A bare /sk_/ also matches inside a public
 * key's random text ("pk_8hsk_…", about one key in 12,000), which once failed a CI run.
 */
export const SECRET_TOKEN = /(?<![A-Za-z0-9_-])(?:sk|whsec)_/;

/**
 * Many sign-ins: hashed cheaply for the tests of the suite this is called in, and at the real cost
 * again after them (test files share a process; test/accounts/password.test.ts holds the real cost).
 */
export function cheapPasswordHashes(): void {
  let restore = () => {};
  before(() => {
    restore = useCheapPasswordHashesInTests();
  });
  after(() => restore());
}

export class PageClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page read. */
  csrf = "";

  constructor(private readonly baseUrl: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  async get(path: string): Promise<PageResponse> {
    return this.send("GET", path);
  }

  /** Posts a form with the last page's CSRF token unless `_csrf` is given (or null: none). */
  async post(
    path: string,
    fields: Record<string, string> = {},
    csrf: string | null = this.csrf,
  ): Promise<PageResponse> {
    const body = new URLSearchParams(csrf === null ? fields : { _csrf: csrf, ...fields });
    return this.send("POST", path, body.toString());
  }

  /** Posts a multipart form (one with a file), with the last page's CSRF token. */
  async postMultipart(
    path: string,
    fields: Record<string, string>,
    files: Record<string, { bytes: Buffer; type: string; name: string }> = {},
  ): Promise<PageResponse> {
    const form = new FormData();
    form.set("_csrf", this.csrf);
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    for (const [name, file] of Object.entries(files)) {
      form.set(name, new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
    }
    return this.send("POST", path, form);
  }

  private async send(method: string, path: string, body?: string | FormData): Promise<PageResponse> {
    const headers: Record<string, string> = { cookie: this.cookieHeader };
    if (typeof body === "string") headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body ?? null,
      redirect: "manual",
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, ...value] = (pair ?? "").split("=");
      if (!name) continue;
      if (/expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value.join("="));
    }
    const text = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return {
      status: response.status,
      location: response.headers.get("location"),
      headers: response.headers,
      text,
    };
  }
}

/** The path part of an invite URL (PUBLIC_URL in tests names port 0). */
export const invitePath = (inviteUrl: string) => new URL(inviteUrl).pathname;

/** Opens an invite link, sets the password and returns the signed-in client. */
export async function acceptInvite(service: TestService, inviteUrl: string): Promise<PageClient> {
  const client = new PageClient(service.url);
  await client.get(invitePath(inviteUrl));
  const accepted = await client.post(invitePath(inviteUrl), { password: TEST_PASSWORD });
  if (accepted.status !== 303)
    throw new Error(`accepting the invite failed: ${accepted.status} ${accepted.text}`);
  return client;
}

async function invited(service: TestService, path: string, body: unknown): Promise<string> {
  const invite = await service.admin("POST", path, body);
  if (invite.status !== 201) throw new Error(`invite failed: ${JSON.stringify(invite.body)}`);
  return invite.body.data.inviteUrl;
}

/** A merchant user invited through the admin API, with a password set and signed in. */
export async function signedInUser(
  service: TestService,
  group: TestGroup,
  email: string,
  role: "owner" | "developer" | "viewer",
): Promise<PageClient> {
  return acceptInvite(
    service,
    await invited(service, `/admin/v1/groups/${group.groupId}/users`, { email, role }),
  );
}

/** An operator invited through the admin API, with a password set and signed in. */
export async function signedInOperator(service: TestService, email: string): Promise<PageClient> {
  return acceptInvite(service, await invited(service, "/admin/v1/operators", { email }));
}
