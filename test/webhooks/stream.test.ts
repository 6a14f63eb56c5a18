import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Agent, fetch as undiciFetch } from "undici";
import { readEventStream, type SseMessage } from "../../src/cli/sse.ts";
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

describe("GET /api/v1/events/stream and POST /api/v1/sandbox/trigger (DESIGN §6)", () => {
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

  it("triggers every event the DESIGN names, each on a new payment of the caller's group only", async () => {
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
});

describe("POST /api/v1/sandbox/trigger without the sandbox", () => {
  it("is not there (404) when the processor is not the in-process sandbox", async () => {
    const service = await startTestService({}, { processor: unreachableProcessor() });
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
