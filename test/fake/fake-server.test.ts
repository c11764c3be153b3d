/**
 * The scripting surface every wire shares: recording, the reply queue and default, readiness without
 * polling, `hang` and `delay`, and a close() that frees everything.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type FakeLlm, startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "./llm.ts";

const KEY = "sk-test-server-7";

describe("recording and scripting", () => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeChatCompletions({ apiKey: KEY });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  const ask = (content: string) =>
    client.chat.completions
      .create({ model: "m-1", messages: [{ role: "user", content }] })
      .then((c) => c.choices[0]?.message.content);

  test("requests record path, method, lower-cased headers, parsed body and arrival time", async () => {
    const before = Date.now();
    await ask("record me");
    const rec = fake.requests.at(-1)!;
    expect(rec.path).toBe("/v1/chat/completions");
    expect(rec.method).toBe("POST");
    expect(rec.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(rec.headers["content-type"]).toContain("application/json");
    expect(rec.body).toEqual({ model: "m-1", messages: [{ role: "user", content: "record me" }] });
    expect(rec.receivedAt).toBeGreaterThanOrEqual(before);
  });

  test("queued replies go first, in order, then the default; a function default sees the request", async () => {
    fake.enqueue({ kind: "text", text: "first" }, { kind: "text", text: "second" });
    fake.setDefault((req) => ({ kind: "text", text: `echo: ${req.body.messages[0].content}` }));
    expect(await ask("a")).toBe("first");
    expect(await ask("b")).toBe("second");
    expect(await ask("c")).toBe("echo: c");
    fake.setDefault({ kind: "text", text: "pong" });
    expect(await ask("d")).toBe("pong");
  });

  test("a request the service would reject does not consume a queued reply", async () => {
    fake.enqueue({ kind: "text", text: "kept" });
    const bad = new OpenAI({ apiKey: "sk-bad", baseURL: fake.baseUrl, maxRetries: 0 });
    await bad.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] }).catch(() => {});
    expect(await ask("now")).toBe("kept");
  });

  test("waitForRequests resolves once n requests have arrived, and at once when already there", async () => {
    const start = fake.requests.length;
    fake.enqueue({ kind: "hang" }, { kind: "hang" });
    const controller = new AbortController();
    const pending = [1, 2].map(() =>
      fetch(`${fake.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
        signal: controller.signal,
      }).catch((e: Error) => e),
    );
    await fake.waitForRequests(start + 2);
    await fake.waitForRequests(1);
    controller.abort();
    expect((await Promise.all(pending)).every((r) => r instanceof Error)).toBe(true);
  });

  test("delay answers after the others: concurrency without sleeps in the test", async () => {
    fake.enqueue({ kind: "delay", ms: 60, reply: { kind: "text", text: "slow" } }, { kind: "text", text: "fast" });
    const order: string[] = [];
    const seen = fake.requests.length;
    const slow = ask("1").then((t) => order.push(t!));
    await fake.waitForRequests(seen + 1); // the slow request has taken the delayed reply

    const fast = ask("2").then((t) => order.push(t!));
    await Promise.all([slow, fast]);
    expect(order).toEqual(["fast", "slow"]);
  });
});

describe("close()", () => {
  test("frees a hung request: the client sees a connection error", async () => {
    const fake = await startFakeOpenAIResponses();
    fake.setDefault({ kind: "hang" });
    const client = new OpenAI({ apiKey: "k", baseURL: fake.baseUrl, maxRetries: 0 });
    const outcome = client.responses.create({ model: "m", input: "hi" }).then(
      () => "answered",
      (error: Error) => error,
    );
    await fake.waitForRequests(1);
    await fake.close();
    expect(await outcome).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  test("cancels pending delays and rejects waiters that can no longer be satisfied", async () => {
    const fake = await startFakeAnthropic();
    fake.setDefault({ kind: "delay", ms: 60_000, reply: { kind: "text", text: "never" } });
    const request = fetch(`${fake.baseUrl}/v1/messages`, {
      method: "POST",
      headers: { "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "c", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
    }).catch((e: Error) => e);
    await fake.waitForRequests(1);
    const waiter = fake.waitForRequests(5);
    await fake.close();
    await expect(waiter).rejects.toThrow("closed after 1 of 5 requests");
    expect(await request).toBeInstanceOf(Error);
    await fake.close(); // idempotent
  });
});

describe("base URLs", () => {
  test("OpenAI-style fakes include /v1; the Anthropic fake is the bare origin", async () => {
    const fakes = await Promise.all([startFakeOpenAIResponses(), startFakeChatCompletions(), startFakeAnthropic()]);
    const [responses, chat, anthropic] = fakes;
    expect(responses.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(chat.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(anthropic.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await Promise.all(fakes.map((f) => f.close()));
  });
});
