import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { registerSecret } from "../../src/config/secret-registry.ts";
import { createTraces } from "../../src/observability/traces.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-traces-0123456789abcdef";
const operator = { trust: "operator" as const, local: true, attended: true };
const DAY = "2026-11-29";
const NOW = Date.parse(`${DAY}T10:00:00Z`);

async function owner(extraEnv: Record<string, string> = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl, ...extraEnv },
    now: () => NOW,
  });
  defer(() => app.close());
  const read = (type: string) =>
    readFileSync(join(h.home, "traces", DAY, `${type}.jsonl`), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  return { h, llm, app, read };
}

describe("traces", () => {
  test("a turn with a subagent: llm_call and tool_exec carry session ids, the subagent's linked to its parent's", async () => {
    const { h, llm, app, read } = await owner();
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "subagents", arguments: { tasks: [{ task: "say hi" }] } }] },
      { kind: "text", text: "hi from the subagent" },
      { kind: "text", text: "all done" },
    );
    const reply = await app.ask({ key: { channel: "cli", chat: "t" }, caller: operator, text: "delegate" });
    expect(reply.response).toBe("all done");

    const events = read("agent_event");
    const main = events[0].session_id as string;
    expect(main).toMatch(/^main-[0-9a-f]{12}$/);
    expect(events.map((e) => e.event)).toEqual(["turn_start", "subagent_start", "subagent_end", "turn_end"]);
    const child = events[1].session_id as string;
    expect(child).toMatch(/^[0-9a-f]{12}$/);
    expect(events[1]).toMatchObject({ parent_session_id: main, event: "subagent_start" });
    expect(events[3]).toMatchObject({ session_id: main, status: "ok", provider: "openai" });

    const calls = read("llm_call");
    expect(calls.map((c) => c.session_id)).toEqual([main, child, main]);
    expect(calls[0]).toMatchObject({ provider: "openai", status: "ok", attempt: 1, tool_calls: 1, type: "llm_call" });
    expect(read("tool_exec")).toEqual([
      expect.objectContaining({ session_id: main, tool: "subagents", status: "ok", ts: `${DAY}T10:00:00.000Z` }),
    ]);

    // Bounded and body-free, private, and never the key.
    const dir = join(h.home, "traces", DAY);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of readdirSync(dir)) {
      expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
      const text = readFileSync(join(dir, file), "utf8");
      expect(text).not.toContain(KEY);
      expect(text).not.toContain("hi from the subagent");
      expect(text).not.toContain("delegate");
    }
  });

  test("a failed turn leaves an error line and a turn_end with its code", async () => {
    const { llm, app, read } = await owner();
    llm.enqueue({ kind: "error", status: 401 });
    await expect(app.ask({ key: { channel: "cli", chat: "f" }, caller: operator, text: "hi" })).rejects.toThrow();
    const [error] = read("error");
    expect(error).toMatchObject({ type: "error", code: expect.any(String) });
    expect(read("agent_event").at(-1)).toMatchObject({ event: "turn_end", status: "error", code: error.code });
    expect(read("llm_call")[0]).toMatchObject({ status: "error", error_class: "auth", http_status: 401 });
  });

  test("a sandbox refusal is a sandbox_event in the turn's session", async () => {
    const { h, llm, app, read } = await owner();
    const outside = join(h.userHome, "elsewhere.txt");
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "file_read", arguments: { path: outside } }] },
      { kind: "text", text: "could not" },
    );
    await app.ask({ key: { channel: "cli", chat: "s" }, caller: { ...operator, cwd: h.home }, text: "read it" });
    const main = read("agent_event")[0].session_id;
    expect(read("sandbox_event")).toEqual([
      expect.objectContaining({ session_id: main, event: "denied", code: expect.any(String) }),
    ]);
    expect(read("tool_exec")[0]).toMatchObject({ session_id: main, tool: "file_read", status: "error" });
  });

  test("FERMIX_TRACE_CONTENT=1 captures the whole request, answer, arguments and output", async () => {
    const { h, llm, app, read } = await owner({ FERMIX_TRACE_CONTENT: "1" });
    const note = join(h.home, "workspace", "note.txt");
    await Bun.write(note, "the note's text");
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "file_read", arguments: { path: note } }] },
      { kind: "text", text: "it says: the note's text" },
    );
    await app.ask({ key: { channel: "cli", chat: "c" }, caller: operator, text: "read my note" });
    const [first, second] = read("llm_call");
    expect(JSON.stringify(first.input.messages)).toContain("read my note");
    expect(first.output.tool_calls[0]).toMatchObject({ name: "file_read", arguments: { path: note } });
    expect(second.output.text).toBe("it says: the note's text");
    expect(read("tool_exec")[0]).toMatchObject({ tool: "file_read", arguments: { path: note } });
    expect(read("tool_exec")[0].output).toContain("the note's text");
    const dir = join(h.home, "traces", DAY);
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), "utf8")).not.toContain(KEY);
  });

  test("a secret that reaches a trace line is redacted", () => {
    const { h } = { h: tempHome() };
    defer(() => h[Symbol.asyncDispose]());
    registerSecret("hunter2-secret-value");
    const traces = createTraces({ dir: join(h.home, "traces"), now: () => NOW });
    traces.write("error", { message: "failed with hunter2-secret-value and sk-ant-api03-abcdefghijklmnopqrstuvwxyz" });
    const text = readFileSync(join(h.home, "traces", DAY, "error.jsonl"), "utf8");
    expect(text).not.toContain("hunter2-secret-value");
    expect(text).not.toContain("sk-ant-api03-abcdefghijklmnopqrstuvwxyz");
  });
});
