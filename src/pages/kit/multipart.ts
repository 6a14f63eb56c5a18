// multipart/form-data for the pages' one upload (a logo), parsed with the body, before the CSRF
// check reads `_csrf`: text fields become strings, a file a FormFile. Nothing touches the disk.
import Busboy from "busboy";
import type { FastifyInstance, FastifyRequest } from "fastify";

export interface FormFile {
  filename: string;
  /** As the browser declared it: a hint only, the bytes decide. */
  declaredType: string;
  bytes: Buffer;
}

const FIELDS = 50;
const FILES = 1;

function parse(request: FastifyRequest, body: Buffer, limit: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const parsed: Record<string, unknown> = {};
    const parser = Busboy({
      headers: request.headers,
      limits: { fields: FIELDS, files: FILES, fileSize: limit, fieldSize: 10_000 },
    });
    let refused: Error | undefined;
    const refuse = (message: string) => {
      refused ??= Object.assign(new Error(message), { statusCode: 413 });
    };
    parser.on("field", (name, value) => {
      parsed[name] = value;
    });
    parser.on("file", (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("limit", () => refuse("The file is too large"));
      stream.on("end", () => {
        const bytes = Buffer.concat(chunks);
        // An empty file input (nothing chosen) is no file.
        if (bytes.length > 0 || info.filename) {
          parsed[name] = {
            filename: info.filename ?? "",
            declaredType: info.mimeType,
            bytes,
          } satisfies FormFile;
        }
      });
    });
    parser.on("filesLimit", () => refuse("One file at a time"));
    parser.on("fieldsLimit", () => refuse("Too many fields"));
    parser.on("error", (error: Error) => reject(Object.assign(error, { statusCode: 400 })));
    parser.on("close", () => (refused ? reject(refused) : resolve(parsed)));
    parser.end(body);
  });
}

/** Lets the pages of `app` take multipart forms of at most `limit` bytes. */
export function acceptMultipart(app: FastifyInstance, limit: number): void {
  app.addContentTypeParser(
    "multipart/form-data",
    { parseAs: "buffer", bodyLimit: limit },
    (request, body, done) => {
      parse(request, body as Buffer, limit).then(
        (parsed) => done(null, parsed),
        (error: Error) => done(error, undefined),
      );
    },
  );
}

export const isFormFile = (value: unknown): value is FormFile =>
  typeof value === "object" && value !== null && Buffer.isBuffer((value as FormFile).bytes);
