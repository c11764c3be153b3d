import { describe, expect, test } from "bun:test";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { createApp } from "../../src/app.ts";
import { startDaemon } from "../../src/daemon/server.ts";
import { createDaemonClient } from "../../src/protocol/client.ts";
import { PROTOCOL_HEADER } from "../../src/protocol/schemas.ts";
import { type FakeLlm, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";

const KEY = "sk-test-daemon-0123456789";
const defer = cleanupAfterEach();

async function daemonOn(h: TempHome, fake: FakeLlm) {
  const app = await createApp({ env: { FERMIX_HOME: h.home, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl } });
  const daemon = await startDaemon(app);
  defer(() => daemon.stop());
  return { app, daemon, client: createDaemonClient(daemon.socket) };
}

async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  return { h, fake, ...(await daemonOn(h, fake)) };
}

function raw(socket: string, path: string, init: RequestInit = {}) {
  return fetch(`http://fermix${path}`, { ...init, unix: socket } as RequestInit);
}

describe("daemon", () => {
  test("its socket is 0600 inside a 0700 home", async () => {
    const { h, daemon } = await setup();
    expect(statSync(daemon.socket).mode & 0o777).toBe(0o600);
    expect(statSync(h.home).mode & 0o777).toBe(0o700);
  });

  test("hello, health and status answer", async () => {
    const { client, h } = await setup();
    const hello = await client.hello();
    expect(hello.protocol).toEqual({ version: 1, min_client: 1 });
    expect((await client.health()).pid).toBe(process.pid);
    const status = await client.status();
    expect(status).toMatchObject({
      pid: process.pid,
      home: h.home,
      primary_provider: "openai",
      fallback_providers: [],
    });
    expect(status.uptime_ms).toBeGreaterThanOrEqual(0);
  });

  test("a client of an unknown protocol is refused with client_too_old or daemon_too_old", async () => {
    const { daemon } = await setup();
    const old = await raw(daemon.socket, "/v1/health", { headers: { [PROTOCOL_HEADER]: "0" } });
    expect(old.status).toBe(426);
    expect(((await old.json()) as any).error.code).toBe("client_too_old");
    const future = await raw(daemon.socket, "/v1/health", { headers: { [PROTOCOL_HEADER]: "99" } });
    expect(((await future.json()) as any).error.code).toBe("daemon_too_old");
  });

  test("an invalid ask is refused naming the field; an unknown route is a 404", async () => {
    const { daemon, fake } = await setup();
    const bad = await raw(daemon.socket, "/v1/ask", {
      method: "POST",
      body: JSON.stringify({ text: "hi", session_id: "no spaces allowed" }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toContain("session_id");
    const notJson = await raw(daemon.socket, "/v1/ask", { method: "POST", body: "{" });
    expect(((await notJson.json()) as any).error.message).toBe("the request body is not JSON");
    expect((await raw(daemon.socket, "/v1/nope")).status).toBe(404);
    expect(fake.requests).toHaveLength(0);
  });

  test("ask streams text deltas over SSE and ends with the answer", async () => {
    const { client, fake } = await setup();
    fake.setDefault({ kind: "text", text: "hello there", chunks: ["hel", "lo ", "there"] });
    const deltas: string[] = [];
    const done = await client.ask({ text: "hi", session_id: "s1" }, { onText: (d) => deltas.push(d) });
    expect(deltas).toEqual(["hel", "lo ", "there"]);
    expect(done).toMatchObject({ response: "hello there", session_id: "s1", provider: "openai", model: "gpt-5.5" });
    expect(done.usage).toMatchObject({ cached_input_tokens: 0, reasoning_tokens: 0 });
    expect(done.usage!.input_tokens).toBeGreaterThan(0);
  });

  test("an ask's answer headers go out at once, before the model has answered", async () => {
    const { daemon, fake } = await setup();
    fake.setDefault({ kind: "delay", ms: 800, reply: { kind: "text", text: "late" } });
    const started = performance.now();
    const response = await raw(daemon.socket, "/v1/ask", { method: "POST", body: JSON.stringify({ text: "hi" }) });
    const headersAfter = performance.now() - started;
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const body = await response.text();
    expect(performance.now() - started).toBeGreaterThanOrEqual(800);
    expect(headersAfter).toBeLessThan(600);
    // The opening line is an SSE comment: readers skip it like the keep-alive.
    expect(body.startsWith(": ")).toBe(true);
    expect(body).toContain("event: done");
  });

  test("a provider failure arrives as an error event with its code", async () => {
    const { client, fake } = await setup();
    fake.setDefault({ kind: "error", status: 401 });
    await expect(client.ask({ text: "hi" })).rejects.toMatchObject({ code: "provider_auth" });
  });

  test("asks in one session run in order; asks in different sessions overlap", async () => {
    const { client, fake } = await setup();
    fake.enqueue({ kind: "delay", ms: 300, reply: { kind: "text", text: "first" } }, { kind: "text", text: "second" });
    const [a, b] = await Promise.all([
      client.ask({ text: "1", session_id: "same" }),
      client.ask({ text: "2", session_id: "same" }),
    ]);
    expect([a.response, b.response]).toEqual(["first", "second"]);
    expect(fake.requests[1]!.receivedAt - fake.requests[0]!.receivedAt).toBeGreaterThanOrEqual(290);
    // The second turn saw the first one's history.
    expect(JSON.stringify(fake.requests[1]!.body.input)).toContain("first");

    fake.enqueue(
      { kind: "delay", ms: 300, reply: { kind: "text", text: "x" } },
      { kind: "delay", ms: 300, reply: { kind: "text", text: "y" } },
    );
    const both = Promise.all([
      client.ask({ text: "x", session_id: "sx" }),
      client.ask({ text: "y", session_id: "sy" }),
    ]);
    await fake.waitForRequests(4);
    expect(fake.requests[3]!.receivedAt - fake.requests[2]!.receivedAt).toBeLessThan(250);
    await both;
  });

  test("a client that hangs up cancels its turn, which commits nothing", async () => {
    const { client, fake } = await setup();
    fake.enqueue({ kind: "hang" });
    const controller = new AbortController();
    const abandoned = client.ask({ text: "never answered", session_id: "s" }, { signal: controller.signal });
    await fake.waitForRequests(1);
    controller.abort();
    await expect(abandoned).rejects.toThrow();
    // The lane is free again and the abandoned question is not in the history.
    const next = await client.ask({ text: "next", session_id: "s" });
    expect(next.response).toBe("pong");
    expect(JSON.stringify(fake.requests[1]!.body.input)).not.toContain("never answered");
    expect((await client.status()).active_turns).toBe(0);
  });

  test("a second daemon on the same home is refused while the first lives", async () => {
    const { h, fake, client } = await setup();
    const app = await createApp({ env: { FERMIX_HOME: h.home, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl } });
    await expect(startDaemon(app)).rejects.toMatchObject({ code: "already_running" });
    expect((await client.health()).ok).toBe(true);
  });

  test("a stale socket and lock from a dead daemon are cleared", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => fake.close());
    mkdirSync(h.home, { recursive: true, mode: 0o700 });
    writeFileSync(`${h.home}/daemon.sock`, "");
    // A pid that cannot be alive (above the kernel's pid_max).
    writeFileSync(`${h.home}/daemon.lock`, "99999999");
    const { client } = await daemonOn(h, fake);
    expect((await client.health()).ok).toBe(true);
  });

  test("shutdown stops it and removes the socket", async () => {
    const { client, daemon } = await setup();
    await client.shutdown();
    await daemon.stopped;
    expect(() => statSync(daemon.socket)).toThrow();
    await expect(client.health()).rejects.toMatchObject({ code: "not_running" });
  });
});
