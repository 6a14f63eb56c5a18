/** What the service answered with an error envelope, or why it could not be reached. */
export class CliError extends Error {
  override readonly name = "CliError";
}

/** Why a request never got an answer (the system's error code), in words naming where it went. */
export function cannotReach(url: string, code: string, detail: string): CliError {
  const reason =
    code === "ECONNREFUSED"
      ? "connection refused: is the service running there? Start it with `npm start`, or pass --url"
      : code === "ENOTFOUND"
        ? "no such host"
        : detail;
  return new CliError(`cannot reach ${url}: ${reason}`);
}

/** A fetch that failed before any answer came. */
function unreachable(url: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cannotReach(url, cause?.code ?? "", cause?.message ?? (error as Error).message);
}

/** Where the service is when --url is not given: PUBLIC_URL, else localhost on PORT (3000). */
/** The banner's `export CHECKOUT_URL=…` first, then the service's own settings. */
export const defaultUrl = () =>
  process.env.CHECKOUT_URL || process.env.PUBLIC_URL || `http://localhost:${process.env.PORT || "3000"}`;

/** Something answered at `url`, but not the service: most often the sandbox processor beside it. */
export const notTheService = (url: string, status: number) =>
  new CliError(
    `${url} did not answer as the checkout service (${status}). The sandbox processor listens on the ` +
      `service's port + 1: pass the service's own address with --url (default ${defaultUrl()})`,
  );

/**
 * A thin client of the admin API: what the CLI sends and how it reads the envelope. Merchant
 * commands use the typed client merchants use instead.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    /** The admin bearer token. */
    readonly credentials: Record<string, string>,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  static admin(baseUrl: string, token: string): ApiClient {
    return new ApiClient(baseUrl, { authorization: `Bearer ${token}` });
  }

  get = (path: string) => this.send("GET", path);
  post = (path: string, body?: unknown, idempotencyKey?: string) =>
    this.send("POST", path, body, idempotencyKey);
  patch = (path: string, body: unknown) => this.send("PATCH", path, body);
  put = (path: string, body: unknown) => this.send("PUT", path, body);
  delete = (path: string) => this.send("DELETE", path);

  private async send(method: string, path: string, body?: unknown, idempotencyKey?: string) {
    const url = `${this.baseUrl}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          ...this.credentials,
          ...(idempotencyKey && { "idempotency-key": idempotencyKey }),
          ...(body !== undefined && { "content-type": "application/json" }),
        },
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw unreachable(this.baseUrl, error);
    }
    const text = await response.text();
    let parsed: { success?: boolean; data?: unknown; error?: { code: string; message: string } };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw notTheService(this.baseUrl, response.status);
    }
    if (parsed.success === undefined) throw notTheService(this.baseUrl, response.status);
    if (!response.ok || parsed.success !== true) {
      throw new CliError(
        `${method} ${path} answered ${response.status} ${parsed.error?.code ?? ""}: ${parsed.error?.message ?? text.slice(0, 200)}`,
      );
    }
    return parsed.data as unknown;
  }
}
