/**
 * src/runtime/unix-post.ts against real peers on a unix socket: Bun.serve, as the daemon answers, and raw sockets
 * for the answers a broken or foreign peer sends.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postOverUnixSocket, utf8Length } from "../../src/runtime/unix-post.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { leaveStaleSocket } from "../fixture/stale-socket.ts";

const defer = cleanupAfterEach();

function socketPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "fxup-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "s.sock");
}

/** A peer that answers whatever arrives with `reply(received so far)` once it returns bytes, then closes. */
function rawPeer(reply: (received: string) => string | undefined) {
  const socket = socketPath();
  let received = "";
  const server = Bun.listen({
    unix: socket,
    socket: {
      data(s, chunk) {
        received += chunk.toString();
        const answer = reply(received);
        if (answer !== undefined) {
          s.write(answer);
          s.end();
        }
      },
    },
  });
  defer(() => server.stop(true));
  return socket;
}

const post = (socket: string, body = '{"text":"ping"}', signal?: AbortSignal) =>
  postOverUnixSocket(socket, "/v1/ask", {
    headers: { "x-fermix-protocol": "1", accept: "text/event-stream" },
    body,
    signal,
  });

describe("a POST over a unix socket, answered by Bun.serve as the daemon answers", () => {
  test("the request arrives whole; the answer's status, headers and body stream as they come", async () => {
    const socket = socketPath();
    const seen: { protocol: string | null; body: unknown }[] = [];
    const { promise: firstRead, resolve: readFirst } = Promise.withResolvers<void>();
    const encoder = new TextEncoder();
    const server = Bun.serve({
      unix: socket,
      async fetch(req) {
        seen.push({ protocol: req.headers.get("x-fermix-protocol"), body: await req.json() });
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(encoder.encode("event: delta\ndata: pong\n\n"));
            // The second frame goes only after the client has read the first: the body streams, it is not buffered.
            await firstRead;
            controller.enqueue(encoder.encode("event: done\ndata: {}\n\n"));
            controller.close();
          },
        });
        return new Response(body, { status: 202, headers: { "content-type": "text/event-stream" } });
      },
    });
    defer(() => server.stop(true));
    const { sent, answer } = post(socket);
    await sent;
    const response = await answer;
    expect(response.status).toBe(202);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("data: pong")) text += decoder.decode((await reader.read()).value);
    expect(text).not.toContain("event: done");
    readFirst();
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value);
    expect(text).toBe("event: delta\ndata: pong\n\nevent: done\ndata: {}\n\n");
    expect(seen).toEqual([{ protocol: "1", body: { text: "ping" } }]);
  });

  test("an answer with a content-length ends there; a megabyte's request goes whole", async () => {
    const socket = socketPath();
    const server = Bun.serve({
      unix: socket,
      async fetch(req) {
        const text = await req.text();
        return Response.json({ error: { code: "conflict", bytes: text.length } }, { status: 409 });
      },
    });
    defer(() => server.stop(true));
    // Past what a unix socket takes in one write, and not ASCII: the rest goes on drain, counted in bytes.
    const big = JSON.stringify({ text: "é€😀x".repeat(128 * 1024) });
    const response = await post(socket, big).answer;
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ error: { code: "conflict", bytes: big.length } });
  });

  test("content-length counts UTF-8 bytes as the socket writes them, lone surrogates as U+FFFD", () => {
    const encoder = new TextEncoder();
    for (const text of ["", "ping", "é", "€", "😀", "a\ud800b", "\udc00", "x\ud83d", "日本語 😀 ok"]) {
      expect(utf8Length(text)).toBe(encoder.encode(text).length);
    }
  });

  test("an abort before the answer rejects with its reason, and the server sees the client go", async () => {
    const socket = socketPath();
    const { promise: arrived, resolve: arrive } = Promise.withResolvers<void>();
    const { promise: gone, resolve: go } = Promise.withResolvers<void>();
    const server = Bun.serve({
      unix: socket,
      async fetch(req) {
        req.signal.addEventListener("abort", () => go(), { once: true });
        await req.text();
        arrive();
        await gone;
        return new Response("too late");
      },
    });
    defer(() => server.stop(true));
    const abort = new AbortController();
    const { answer } = post(socket, "{}", abort.signal);
    await arrived;
    abort.abort(new Error("superseded"));
    await expect(answer).rejects.toThrow("superseded");
    await gone;
  });

  test("a reader that cancels the body hangs up", async () => {
    const socket = socketPath();
    const { promise: gone, resolve: go } = Promise.withResolvers<void>();
    const server = Bun.serve({
      unix: socket,
      fetch(req) {
        req.signal.addEventListener("abort", () => go(), { once: true });
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(": waiting\n\n"));
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      },
    });
    defer(() => server.stop(true));
    const response = await post(socket).answer;
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await gone;
  });
});

describe("a request held back by its last byte (release)", () => {
  /** Bun.serve as the daemon: `started` when a handler runs (before it reads the body), `bodies` what it then read. */
  function servingDaemon() {
    const socket = socketPath();
    const bodies: string[] = [];
    const failures: string[] = [];
    const { promise: started, resolve: start } = Promise.withResolvers<void>();
    const { promise: ended, resolve: end } = Promise.withResolvers<void>();
    const server = Bun.serve({
      unix: socket,
      async fetch(req) {
        start();
        try {
          bodies.push(await req.text());
          return new Response("answered");
        } catch (err) {
          failures.push((err as Error).name);
          return new Response("cut short", { status: 400 });
        } finally {
          end();
        }
      },
    });
    defer(() => server.stop(true));
    return { socket, bodies, failures, started, ended };
  }

  test("the server starts on it at once, and has the whole body only once it is released", async () => {
    const daemon = servingDaemon();
    const { promise: release, resolve: decide } = Promise.withResolvers<boolean>();
    let sentYet = false;
    const { sent, answer } = postOverUnixSocket(daemon.socket, "/v1/ask", {
      headers: {},
      body: '{"text":"ping"}',
      release,
    });
    void sent.then(() => {
      sentYet = true;
    });
    await daemon.started;
    expect({ bodies: daemon.bodies, sentYet }).toEqual({ bodies: [], sentYet: false });
    decide(true);
    await sent;
    expect(await (await answer).text()).toBe("answered");
    expect(daemon.bodies).toEqual(['{"text":"ping"}']);
  });

  test("abandoned, it never arrives as a request: the answer rejects as aborted, the server's read fails", async () => {
    const daemon = servingDaemon();
    const { promise: release, resolve: decide } = Promise.withResolvers<boolean>();
    const { sent, answer } = postOverUnixSocket(daemon.socket, "/v1/ask", {
      headers: {},
      body: '{"text":"ping"}',
      release,
    });
    await daemon.started;
    decide(false);
    await expect(answer).rejects.toMatchObject({ name: "AbortError" });
    await sent;
    await daemon.ended;
    expect(daemon.bodies).toEqual([]);
    expect(daemon.failures).toHaveLength(1);
  });

  test("a body that does not end in ASCII waits whole, and goes whole, past what one write takes", async () => {
    const daemon = servingDaemon();
    const { promise: release, resolve: decide } = Promise.withResolvers<boolean>();
    const body = `${"é€😀x".repeat(128 * 1024)}€`;
    const { sent, answer } = postOverUnixSocket(daemon.socket, "/v1/ask", { headers: {}, body, release });
    decide(true);
    await sent;
    expect(await (await answer).text()).toBe("answered");
    expect(daemon.bodies).toEqual([body]);
  });
});

describe("what a missing, broken or foreign peer does", () => {
  test("nothing listening: the answer rejects with the connect's own code and `sent` still settles", async () => {
    const { sent, answer } = post(socketPath());
    await expect(answer).rejects.toMatchObject({ code: "ENOENT" });
    await sent;
    // A socket file no process listens on, as a daemon killed with SIGKILL leaves it.
    const stale = socketPath();
    await leaveStaleSocket(stale);
    await expect(post(stale).answer).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  test("a connection closed before any answer is not a refused connect: ECONNRESET, as fetch says it", async () => {
    const socket = rawPeer(() => "");
    const failure = post(socket).answer;
    await expect(failure).rejects.toThrow("closed before an answer came");
    await expect(failure).rejects.toMatchObject({ code: "ECONNRESET" });
  });

  test("a peer that does not speak HTTP, or answers in chunked coding, or never ends its head, is refused", async () => {
    const headEnd = (text: string) => (received: string) => (received.includes("\r\n\r\n{") ? text : undefined);
    const cases: [string, string][] = [
      ["SSH-2.0-OpenSSH_9.6\r\n\r\n", "not an HTTP answer"],
      ["HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\npong\r\n0\r\n\r\n", 'transfer coding "chunked"'],
      ["HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header line"],
      ["HTTP/1.1 200 OK\r\ncontent-length: -3\r\n\r\n", 'content-length "-3"'],
      [`HTTP/1.1 200 OK\r\nx-long: ${"a".repeat(70 * 1024)}`, "without ending its head"],
    ];
    for (const [text, message] of cases) {
      await expect(post(rawPeer(headEnd(text))).answer).rejects.toThrow(message);
    }
  });

  test("a body cut short of its content-length errors its stream; a close-delimited one just ends", async () => {
    const cut = rawPeer((r) =>
      r.includes("\r\n\r\n{") ? "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\npong" : undefined,
    );
    const response = await post(cut).answer;
    await expect(response.text()).rejects.toThrow("closed 6 bytes before the answer's end");
    const whole = rawPeer((r) => (r.includes("\r\n\r\n{") ? "HTTP/1.0 200 OK\r\n\r\npong" : undefined));
    expect(await (await post(whole).answer).text()).toBe("pong");
  });
});
