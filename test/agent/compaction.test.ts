import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { digestOldToolResults } from "../../src/agent/compaction.ts";
import { createApp } from "../../src/app.ts";
import type { Message } from "../../src/providers/types.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-compaction-0123456789";
const defer = cleanupAfterEach();
const operator = { trust: "operator" as const, local: true, attended: true };
/** OpenAI's window in fermix's catalog is 400k tokens; ~4 characters a token. */
const WINDOW_CHARS = 400_000 * 4;

describe("compaction", () => {
  test("a conversation past 0.85 of the window is summarised; the next request fits and the originals stay stored", async () => {
    const h = tempHome();
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.close());
    const app = await createApp({
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    defer(() => app.close());
    fake.setDefault((req) =>
      String(req.body.instructions).startsWith("You compress a conversation")
        ? { kind: "text", text: "SUMMARY: the user pasted two large logs about the billing outage." }
        : { kind: "text", text: "noted" },
    );
    const key = { channel: "cli", chat: "big" };
    const big = (tag: string) =>
      `${tag} ${"log line about the billing outage. ".repeat(Math.ceil((0.45 * WINDOW_CHARS) / 34))}`;

    await app.ask({ key, caller: operator, text: big("first") });
    await app.idle();
    expect(fake.requests).toHaveLength(1); // under the threshold: no summary call
    await app.ask({ key, caller: operator, text: big("second") });
    await app.idle();
    expect(fake.requests).toHaveLength(3); // the turn, then the summary call
    expect(fake.requests[2]!.body.instructions).toStartWith("You compress a conversation");

    await app.ask({ key, caller: operator, text: "what was that about?" });
    const next = fake.requests[3]!.body;
    expect(next.instructions).toContain("SUMMARY: the user pasted two large logs");
    expect(JSON.stringify(next).length).toBeLessThan(WINDOW_CHARS);
    expect(JSON.stringify(next.input)).not.toContain("first log line");

    const db = new Database(`${h.home}/memory.db`, { readonly: true });
    const stored = db
      .query("SELECT role, length(text) AS size FROM messages WHERE chat = 'big' ORDER BY id")
      .all() as any[];
    db.close();
    expect(stored.map((r) => r.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(stored[0].size).toBeGreaterThan(0.4 * WINDOW_CHARS);
  });

  test("/compact forces it, and only the owner may", async () => {
    const h = tempHome();
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.close());
    const app = await createApp({
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    defer(() => app.close());
    const key = { channel: "cli", chat: "small" };
    for (const text of ["one", "two", "three"]) await app.ask({ key, caller: operator, text });
    fake.setDefault({ kind: "text", text: "SUMMARY: counted to three" });
    const guest = await app.ask({ key, caller: { trust: "guest", local: false, attended: true }, text: "/compact" });
    expect(guest.response).toBe("This command requires owner permissions.");
    const owner = await app.ask({ key, caller: operator, text: "/compact" });
    expect(owner.response).toMatch(/^Compacted: \d+ earlier messages are now a summary\.$/);
  });

  test("inside a long tool loop older tool results are digested in what is sent, the last three kept whole", () => {
    const result = (i: number): Message => ({
      role: "tool",
      toolCallId: `c${i}`,
      toolName: "file_read",
      content: `${i}:${"x".repeat(4000)}`,
    });
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      ...Array.from({ length: 6 }, (_, i) => result(i)),
    ];
    const sent = digestOldToolResults(messages, 1000);
    const contents = sent.filter((m) => m.role === "tool").map((m) => (m as any).content as string);
    expect(contents.slice(0, 3).every((c) => c.includes("[digested: 4002 characters"))).toBe(true);
    expect(contents.slice(3)).toEqual([3, 4, 5].map((i) => `${i}:${"x".repeat(4000)}`));
    expect((messages[1] as any).content).toHaveLength(4002); // the originals are untouched
  });
});
