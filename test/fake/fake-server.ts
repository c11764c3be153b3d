/**
 * The vendor-neutral half of every fake: a loopback Bun server that records requests, hands out
 * scripted replies in order, and owns the replies that need no vendor bytes (`hang`, `delay`).
 * Each wire supplies only its dialect: where it listens, how it rejects, how it renders.
 */
import type { FakeLlm, FakeReply, RecordedRequest, RenderableReply } from "./types.ts";

export type Incoming = {
  rec: RecordedRequest;
  /** The parsed body, or undefined when it was empty or not JSON (see `malformed`). */
  json: unknown;
  malformed: boolean;
};

export type WireSpec = {
  /** The base URL clients are given, from the server origin (with or without `/v1`). */
  baseUrl(origin: string): string;
  /** The one path this wire serves, e.g. `/v1/responses`. */
  path: string;
  /** The vendor's answer to an unknown path or method. */
  notFound(incoming: Incoming): Response;
  /** A real-service rejection (auth, malformed body, conversation rules) or null to go on. */
  validate(incoming: Incoming): Response | null;
  render(reply: RenderableReply, incoming: Incoming): Response;
};

type Waiter = { n: number; resolve: () => void; reject: (error: Error) => void };

export async function startFakeServer(spec: WireSpec): Promise<FakeLlm> {
  const requests: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  let fallback: FakeReply | ((req: RecordedRequest) => FakeReply) = { kind: "text", text: "pong" };
  const waiters = new Set<Waiter>();
  // Replies parked by `hang` and `delay`; close() settles them so nothing outlives the fake.
  const parked = new Set<() => void>();
  let closed = false;

  const notifyWaiters = () => {
    for (const waiter of waiters) {
      if (requests.length >= waiter.n) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };

  const park = (ms?: number) =>
    new Promise<void>((resolve) => {
      const release = () => {
        parked.delete(release);
        clearTimeout(timer);
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(release, ms);
      parked.add(release);
    });

  const answer = async (reply: FakeReply, incoming: Incoming): Promise<Response> => {
    if (reply.kind === "hang") {
      await park();
      return new Response(null, { status: 503 }); // only reached after close(): the socket is gone by then
    }
    if (reply.kind === "delay") {
      await park(reply.ms);
      if (closed) return new Response(null, { status: 503 });
      return answer(reply.reply, incoming);
    }
    return spec.render(reply, incoming);
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Bun's default 10 s idle timeout would turn a long `hang` or `delay` into a reset nobody scripted.
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const text = await req.text();
      let json: unknown;
      let malformed = false;
      if (text.length > 0) {
        try {
          json = JSON.parse(text);
        } catch {
          malformed = true;
        }
      }
      const rec: RecordedRequest = {
        path: url.pathname,
        method: req.method,
        headers: Object.fromEntries(req.headers),
        body: malformed ? text : json,
        bytes: Buffer.byteLength(text),
        receivedAt: Date.now(),
      };
      requests.push(rec);
      notifyWaiters();
      const incoming: Incoming = { rec, json, malformed };

      if (url.pathname !== spec.path || req.method !== "POST") return spec.notFound(incoming);
      const rejection = spec.validate(incoming);
      if (rejection) return rejection;
      const reply = queue.shift() ?? (typeof fallback === "function" ? fallback(rec) : fallback);
      return answer(reply, incoming);
    },
  });

  const origin = `http://127.0.0.1:${server.port}`;
  return {
    baseUrl: spec.baseUrl(origin),
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setDefault: (reply) => {
      fallback = reply;
    },
    waitForRequests: (n) => {
      if (requests.length >= n) return Promise.resolve();
      if (closed) return Promise.reject(new Error(`fake LLM is closed after ${requests.length} of ${n} requests`));
      return new Promise<void>((resolve, reject) => waiters.add({ n, resolve, reject }));
    },
    close: async () => {
      if (closed) return;
      closed = true;
      // Force-close sockets first so parked handlers resolve into connections that no longer exist.
      await server.stop(true);
      for (const release of [...parked]) release();
      for (const waiter of waiters) {
        waiter.reject(new Error(`fake LLM closed after ${requests.length} of ${waiter.n} requests`));
      }
      waiters.clear();
    },
  };
}
