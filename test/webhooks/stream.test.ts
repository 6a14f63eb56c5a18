import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { readEventStream, type SseMessage } from "@checkout-service/client";
import { Agent, fetch as undiciFetch } from "undici";
import { unreachableProcessor } from "../helpers/processor.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

/** An open stream and the messages it has brought so far. */
interface OpenStream {
  messages: SseMessage[];
  response: Response;
  close(): void;
  /** Resolves with the first message `match` accepts, or fails after the timeout. */
  until(match: (message: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
}

describe("GET /api/v1/events/stream and POST /api/v1/sandbox/trigger", () => {
  let service: TestService;
  let group: TestGroup;
  let other: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Streams" });
    other = await service.createGroup({ name: "Someone else" });
  });
  after(async () => {
    await service.close();
  });

  const keys = (who: TestGroup) => ({ "x-public-key": who.publicKey, "x-secret-key": who.secretKey });

  const openStream = async (who: TestGroup, lastEventId?: string): Promise<OpenStream> => {
    const abort = new AbortController();
    // Its own connection pool, closed with the stream: no socket outlives the test.
    const agent = new Agent();
    const response = (await undiciFetch(`${service.url}/api/v1/events/stream`, {
      headers: { ...keys(who), ...(lastEventId && { "last-event-id": lastEventId }) },
      signal: abort.signal,
      dispatcher: agent,
    })) as unknown as Response;
    const messages: SseMessage[] = [];
    const waiters = new Set<() => void>();
    if (response.ok && response.body) {
      const body = response.body;
      void (async () => {
        try {
          for await (const message of readEventStream(body)) {
            messages.push(message);
            for (const wake of waiters) wake();
          }
        } catch {}
      })();
    }
    return {
      messages,
      response,
      close: () => {
        abort.abort();
        void agent.destroy();
      },
      until: (match, timeoutMs = 10_000) =>
        new Promise((resolve, reject) => {
          const check = () => {
            const found = messages.find(match);
            if (!found) return;
            clearTimeout(timer);
            waiters.delete(check);
            resolve(found);
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            reject(
              new Error(
                `no matching message in ${timeoutMs} ms; got ${messages.map((m) => m.event).join(",")}`,
              ),
            );
          }, timeoutMs);
          waiters.add(check);
          check();
        }),
    };
  };

  const trigger = async (event: string, who = group) => {
    const answer = await service.api(who, "POST", "/api/v1/sandbox/trigger", { event });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    return answer.body.data.transactionId as string;
  };
  const of = (transactionId: string, event: string) => (message: SseMessage) =>
    message.event === event && JSON.parse(message.data).transactionId === transactionId;

  it("streams each event as it is created: id the webhook-id, event the name, data the webhook body", async () => {
    const stream = await openStream(group);
    try {
      assert.equal(stream.response.status, 200);
      assert.match(stream.response.headers.get("content-type") ?? "", /^text\/event-stream/);
      const id = await trigger("payment.completed");
      const message = await stream.until(of(id, "payment.completed"));
      const body = JSON.parse(message.data);
      assert.equal(body.event, "payment.completed");
      assert.equal(body.status, "succeeded");
      assert.equal(body.amount, 1999);
      assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT/, "the body's timestamp is filled in");
      // No webhookUrl was given: the event exists all the same, with the same id everywhere.
      const listed = (await service.api(group, "GET", `/api/v1/payments/${id}/events`)).body.data;
      assert.equal(listed.length, 1);
      assert.equal(listed[0].eventId, message.id);
      assert.equal(listed[0].deliveries.length, 0);
      assert.equal(listed[0].payload.timestamp, body.timestamp, "the events API shows no timestamp: null");
    } finally {
      stream.close();
    }
  });

  it("triggers every documented event, each on a new payment of the caller's group only", async () => {
    const mine = await openStream(group);
    const theirs = await openStream(other);
    try {
      const expected: [string, string][] = [];
      for (const event of ["payment.failed", "payment.expired", "payment.refunded", "payment.disputed"]) {
        expected.push([await trigger(event), event]);
      }
      for (const [id, event] of expected) await mine.until(of(id, event));
      const refunded = expected.find(([, event]) => event === "payment.refunded")?.[0] ?? "";
      assert.ok(mine.messages.some(of(refunded, "payment.completed")), "it was paid before it was refunded");
      const ids = new Set(expected.map(([id]) => id));
      assert.ok(
        theirs.messages.every((message) => !ids.has(JSON.parse(message.data).transactionId)),
        "another group's stream shows none of them",
      );
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it("resumes after Last-Event-ID with what was missed, in order, and nothing already seen", async () => {
    const first = await openStream(group);
    const seen = await trigger("payment.completed");
    const last = await first.until(of(seen, "payment.completed"));
    first.close();
    const missed = await trigger("payment.refunded");
    const resumed = await openStream(group, last.id);
    try {
      const refunded = await resumed.until(of(missed, "payment.refunded"));
      const order = resumed.messages.map((message) => message.id);
      const completed = resumed.messages.find(of(missed, "payment.completed"));
      assert.ok(completed && order.indexOf(completed.id) < order.indexOf(refunded.id));
      assert.ok(
        !resumed.messages.some((message) => message.id === last.id),
        "the last event is not sent again",
      );
      assert.ok(!resumed.messages.some(of(seen, "payment.completed")));
      assert.equal(new Set(order).size, order.length, "no event twice");
    } finally {
      resumed.close();
    }
  });

  it("answers bad input with the error envelope and keeps other groups' ids out", async () => {
    const noKeys = await fetch(`${service.url}/api/v1/events/stream`);
    assert.equal(noKeys.status, 401);
    assert.equal((await noKeys.json()).error.code, "UNAUTHORIZED");
    for (const lastEventId of ["not-an-id", "00000000-0000-0000-0000-000000000000"]) {
      const stream = await openStream(group, lastEventId);
      assert.equal(stream.response.status, 400);
      assert.equal((await stream.response.json()).error.code, "INVALID_REQUEST");
      stream.close();
    }
    const mine = await openStream(group);
    const id = await trigger("payment.completed");
    const message = await mine.until(of(id, "payment.completed"));
    mine.close();
    const foreign = await openStream(other, message.id);
    assert.equal(foreign.response.status, 400, "another group's event id is no position in this stream");
    foreign.close();

    for (const body of [{ event: "payment.unknown" }, {}, { event: 1 }]) {
      const answer = await service.api(group, "POST", "/api/v1/sandbox/trigger", body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error.code, "INVALID_REQUEST");
    }
  });

  it("holds at most a bounded number of streams per group", async () => {
    const streams: OpenStream[] = [];
    try {
      for (let i = 0; i < 10; i++) streams.push(await openStream(group));
      assert.ok(streams.every((stream) => stream.response.status === 200));
      const refused = await openStream(group);
      assert.equal(refused.response.status, 429);
      assert.equal((await refused.response.json()).error.code, "RATE_LIMIT_EXCEEDED");
      refused.close();
    } finally {
      for (const stream of streams) stream.close();
    }
    // A closed stream frees its place.
    const again = await (async () => {
      for (let i = 0; i < 50; i++) {
        const stream = await openStream(group);
        if (stream.response.status === 200) return stream;
        stream.close();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return undefined;
    })();
    assert.ok(again, "a place is free again once streams close");
    again.close();
  });

  /** An event id of the group, for Last-Event-ID. */
  const someEventId = async (who: TestGroup) => {
    const id = await trigger("payment.completed", who);
    for (;;) {
      const listed = await service.api(who, "GET", `/api/v1/payments/${id}/events`);
      if (listed.body.data.length > 0) return listed.body.data[0].eventId as string;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  /**
   * Holds the events table while `meanwhile` runs, so every stream that resumes waits for the
   * database as long as it takes: on PostgreSQL a lock, on the embedded database (one connection)
   * the transaction itself.
   */
  const holdingEvents = async <T>(meanwhile: () => Promise<T>): Promise<T> => {
    let result: T | undefined;
    await service.services.db.transaction(async (tx) => {
      await tx.query("LOCK TABLE webhook_events IN ACCESS EXCLUSIVE MODE");
      result = await meanwhile();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    return result as T;
  };

  /** A raw connection to the service, for requests that must arrive together or hang up early. */
  const connected = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(new URL(service.url).port), "127.0.0.1", () => resolve(socket));
      socket.once("error", reject);
    });
  const streamRequest = (who: TestGroup, lastEventId: string) =>
    `GET /api/v1/events/stream HTTP/1.1\r\nHost: x\r\nX-Public-Key: ${who.publicKey}\r\n` +
    `X-Secret-Key: ${who.secretKey}\r\nLast-Event-ID: ${lastEventId}\r\n\r\n`;
  /** The status of the first answer on the socket. */
  const statusLine = (socket: Socket) =>
    new Promise<number>((resolve, reject) => {
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk;
        const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
        if (match) resolve(Number(match[1]));
      });
      socket.once("error", reject);
    });

  /** Opens streams until one is refused or `limit` are open; the open ones. */
  const fill = async (who: TestGroup, limit = 12) => {
    const streams: OpenStream[] = [];
    for (let i = 0; i < limit; i++) {
      const stream = await openStream(who);
      if (stream.response.status !== 200) {
        stream.close();
        break;
      }
      streams.push(stream);
    }
    return streams;
  };

  it("holds the cap under a burst of concurrent resumed streams (the wait for Last-Event-ID races no slot)", async () => {
    const racing = await service.createGroup({ name: "Racing streams" });
    const lastEventId = await someEventId(racing);
    // Connected first, then every request written at once: they reach the server together.
    const sockets = await Promise.all(Array.from({ length: 40 }, () => connected()));
    try {
      const statuses = sockets.map((socket) => statusLine(socket));
      await holdingEvents(async () => {
        for (const socket of sockets) socket.write(streamRequest(racing, lastEventId));
      });
      const answered = await Promise.all(statuses);
      assert.equal(answered.filter((status) => status === 200).length, 10, answered.join(","));
      assert.equal(answered.filter((status) => status === 429).length, 30);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it("frees the slot of a client that hangs up while its stream opens, and stops polling for it", async () => {
    const flaky = await service.createGroup({ name: "Flaky network" });
    const lastEventId = await someEventId(flaky);
    const sockets = await Promise.all(Array.from({ length: 12 }, () => connected()));
    await holdingEvents(async () => {
      for (const socket of sockets) socket.write(streamRequest(flaky, lastEventId));
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const socket of sockets) socket.destroy();
    });
    // Every hung-up stream gives its place back: ten open again within a few seconds.
    let open: OpenStream[] = [];
    for (let attempt = 0; attempt < 50 && open.length < 10; attempt++) {
      for (const stream of open) stream.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      open = await fill(flaky, 10);
    }
    try {
      assert.equal(open.length, 10, "the group is not locked out by clients that hung up");
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it("ends a key's open streams when the key is revoked, and sends nothing after", async () => {
    const revoking = await service.createGroup({ name: "Revoking" });
    const issued = await service.admin("POST", `/admin/v1/groups/${revoking.groupId}/keys`);
    assert.equal(issued.status, 201);
    const doomed = {
      ...revoking,
      publicKey: issued.body.data.publicKey,
      secretKey: issued.body.data.secretKey,
    };
    const stream = await openStream(doomed);
    const survivor = await openStream(revoking);
    try {
      assert.equal(stream.response.status, 200);
      const before = await trigger("payment.completed", revoking);
      await stream.until(of(before, "payment.completed"));
      const revoked = await service.admin("DELETE", `/admin/v1/keys/${doomed.publicKey}`);
      assert.equal(revoked.status, 200);
      const seen = stream.messages.length;
      for (let i = 0; i < 3; i++) await trigger("payment.completed", revoking);
      const last = await trigger("payment.completed", revoking);
      await survivor.until(of(last, "payment.completed"));
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.equal(stream.messages.length, seen, "no event reaches a revoked key's stream");
      const reopened = await openStream(doomed);
      assert.equal(reopened.response.status, 401);
      reopened.close();
    } finally {
      stream.close();
      survivor.close();
    }
  });
});

describe("POST /api/v1/sandbox/trigger without the sandbox", () => {
  it("is not there (404) when the processor is not the in-process sandbox", async () => {
    const service = await startTestService({}, { processors: [unreachableProcessor()] });
    try {
      const group = await service.createGroup({ name: "Real money" });
      const answer = await service.api(group, "POST", "/api/v1/sandbox/trigger", {
        event: "payment.completed",
      });
      assert.equal(answer.status, 404);
      assert.equal(answer.body.error.code, "NOT_FOUND");
    } finally {
      await service.close();
    }
  });
});
