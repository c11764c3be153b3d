import { describe, expect, test } from "bun:test";
import { readEvent } from "../../src/harness/events.ts";
import { readJsonLines } from "../../src/harness/json-lines.ts";

const streamOf = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(new TextEncoder().encode(chunk));
      c.close();
    },
  });

describe("readJsonLines", () => {
  test("joins lines split across chunks; skips an oversized line and a non-JSON one as framing errors", async () => {
    const values: unknown[] = [];
    const errors: string[] = [];
    await readJsonLines(streamOf('{"a":', "1}\n", `{"big":"${"x".repeat(100)}"}\n`, "nope\n\n", '{"b":2}'), {
      maxBytes: 50,
      onValue: (v) => values.push(v),
      onFramingError: (e) => errors.push(e),
    });
    expect(values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain("longer than 50 bytes");
    expect(errors[1]).toContain("not JSON");
  });
});

describe("readEvent", () => {
  test("codex: a thread id, milestones, the last agent message, usage and failures; unknown fields and types pass", () => {
    expect(readEvent("codex", { type: "thread.started", thread_id: "th_1", extra: true })).toEqual({
      session: "th_1",
      milestone: "started",
    });
    expect(
      readEvent("codex", { type: "item.completed", item: { id: "i", type: "agent_message", text: "Done." } }),
    ).toEqual({ final: "Done." });
    expect(
      readEvent("codex", {
        type: "item.completed",
        item: { type: "command_execution", command: "npm test", exit_code: 1, aggregated_output: "" },
      })?.milestone,
    ).toBe("ran `npm test` (exit 1)");
    expect(readEvent("codex", { type: "turn.completed", usage: { output_tokens: 3 } })).toEqual({
      usage: { output_tokens: 3 },
      done: true,
    });
    expect(readEvent("codex", { type: "turn.failed", error: { message: "quota" } })).toEqual({
      error: "quota",
      done: true,
    });
    expect(readEvent("codex", { type: "item.completed", item: { type: "reasoning", text: "hmm" } })).toEqual({});
    expect(readEvent("codex", { type: "some.future.event" })).toBeUndefined();
    expect(readEvent("codex", { type: "thread.started" })).toBeUndefined();
  });

  test("claude: init, tool use milestones, and the result with its cost", () => {
    expect(
      readEvent("claude", { type: "system", subtype: "init", session_id: "s1", model: "opus", tools: [] }),
    ).toEqual({
      session: "s1",
      milestone: "started (opus)",
    });
    expect(
      readEvent("claude", {
        type: "assistant",
        message: { content: [{ type: "tool_use", name: "Edit", input: { file_path: "src/a.ts" } }] },
      })?.milestone,
    ).toBe("Edit `src/a.ts`");
    const result = readEvent("claude", {
      type: "result",
      subtype: "success",
      is_error: false,
      result: "ok",
      session_id: "s1",
      total_cost_usd: 0.5,
      usage: { input_tokens: 1 },
    });
    expect(result).toMatchObject({ final: "ok", session: "s1", done: true, usage: { total_cost_usd: 0.5 } });
    expect(result?.error).toBeUndefined();
    expect(readEvent("claude", { type: "result", subtype: "error_during_execution", is_error: true })?.error).toContain(
      "error_during_execution",
    );
    expect(readEvent("claude", { type: "stream_event", event: {} })).toBeUndefined();
  });
});
