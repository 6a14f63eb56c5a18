/** One Server-Sent Events message. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Reads a text/event-stream body message by message (the WHATWG parsing rules, less `retry`).
 * Ends when the body ends; abort the request to stop early.
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let id: string | undefined;
  let event = "";
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.search(/\r\n|\r|\n/);
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      newline = buffer.search(/\r\n|\r|\n/);
      if (line === "") {
        if (data.length > 0) yield { id, event: event || "message", data: data.join("\n") };
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id" && !value.includes("\0")) id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
  }
}
