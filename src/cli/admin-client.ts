/** A thin client of /admin/v1: what the CLI sends and how it reads the envelope. */
export class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  get = (path: string) => this.send("get", path);
  post = (path: string, body?: unknown) => this.send("post", path, body);
  patch = (path: string, body: unknown) => this.send("patch", path, body);
  delete = (path: string) => this.send("delete", path);

  private async send(method: "get" | "post" | "patch" | "delete", path: string, body?: unknown) {
    const response = await fetch(`${this.baseUrl.replace(/\/+$/, "")}${path}`, {
      method: method.toUpperCase(),
      headers: {
        authorization: `Bearer ${this.token}`,
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
