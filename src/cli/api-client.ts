/** A thin client of the service's JSON APIs: what the CLI sends and how it reads the envelope. */
export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    /** The admin bearer token, or the merchant's key headers. */
    private readonly credentials: Record<string, string>,
  ) {}

  static admin(baseUrl: string, token: string): ApiClient {
    return new ApiClient(baseUrl, { authorization: `Bearer ${token}` });
  }

  static merchant(baseUrl: string, publicKey: string, secretKey: string): ApiClient {
    return new ApiClient(baseUrl, { "x-public-key": publicKey, "x-secret-key": secretKey });
  }

  get = (path: string) => this.send("get", path);
  post = (path: string, body?: unknown, idempotencyKey?: string) =>
    this.send("post", path, body, idempotencyKey);
  patch = (path: string, body: unknown) => this.send("patch", path, body);
  delete = (path: string) => this.send("delete", path);

  private async send(
    method: "get" | "post" | "patch" | "delete",
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ) {
    const response = await fetch(`${this.baseUrl.replace(/\/+$/, "")}${path}`, {
      method: method.toUpperCase(),
      headers: {
        ...this.credentials,
        ...(idempotencyKey && { "idempotency-key": idempotencyKey }),
        ...(body !== undefined && { "content-type": "application/json" }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: { success?: boolean; data?: unknown; error?: { code: string; message: string } };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`unexpected answer (${response.status}): ${text.slice(0, 200)}`);
    }
    if (!response.ok || parsed.success !== true) {
      throw new Error(
        `${parsed.error?.code ?? response.status}: ${parsed.error?.message ?? text.slice(0, 200)}`,
      );
    }
    return parsed.data as unknown;
  }
}
