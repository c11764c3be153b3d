import { describe, expect, test } from "bun:test";
import { createSpanAssembler, type ExportSpan } from "../../../src/observability/export/span-assembler.ts";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function assemble(records: Record<string, unknown>[]) {
  const out: ExportSpan[] = [];
  const a = createSpanAssembler((s) => out.push(s));
  for (const r of records) a.record(r);
  return { out, a };
}

describe("span assembler", () => {
  test("a turn is a trace; its model call and tool run are spans under it, emitted as they end", () => {
    const { out } = assemble([
      { ts: at(0), type: "agent_event", session_id: "main-a", event: "turn_start", channel: "cli" },
      {
        ts: at(2),
        type: "llm_call",
        session_id: "main-a",
        provider: "openai",
        model: "m",
        duration_ms: 1500,
        status: "ok",
        input_tokens: 10,
        output_tokens: 3,
      },
      { ts: at(3), type: "tool_exec", session_id: "main-a", tool: "read_file", status: "error", duration_ms: 200 },
      { ts: at(4), type: "agent_event", session_id: "main-a", event: "turn_end", status: "ok" },
    ]);
    expect(out.map((s) => [s.name, s.type, s.root])).toEqual([
      ["openai/m", "llm", false],
      ["read_file", "tool", false],
      ["turn", "general", true],
    ]);
    const [llm, tool, root] = out as [ExportSpan, ExportSpan, ExportSpan];
    expect(llm.traceId).toBe(root.traceId);
    expect(llm.parentId).toBe(root.id);
    expect(llm.parentIsRoot).toBe(true);
    expect(llm.endMs - llm.startMs).toBe(1500);
    expect(llm.usage).toEqual({ input: 10, output: 3 });
    expect(tool.error?.type).toBe("tool_error");
    expect(root.startMs).toBe(Date.parse(at(0)));
    expect(root.endMs).toBe(Date.parse(at(4)));
    expect(root.attributes.channel).toBe("cli");
  });

  test("a sub-agent's session nests in its parent's trace, and its calls under the sub-agent", () => {
    const { out } = assemble([
      { ts: at(0), type: "agent_event", session_id: "main-p", event: "turn_start" },
      { ts: at(1), type: "agent_event", session_id: "abc", parent_session_id: "main-p", event: "subagent_start" },
      { ts: at(2), type: "llm_call", session_id: "abc", provider: "openai", model: "m", duration_ms: 10, status: "ok" },
      {
        ts: at(3),
        type: "agent_event",
        session_id: "abc",
        parent_session_id: "main-p",
        event: "subagent_end",
        status: "ok",
      },
      { ts: at(4), type: "agent_event", session_id: "main-p", event: "turn_end", status: "ok" },
    ]);
    const [llm, sub, root] = out as [ExportSpan, ExportSpan, ExportSpan];
    expect(sub).toMatchObject({ name: "subagent", root: false, parentId: root.id, parentIsRoot: true });
    expect(llm).toMatchObject({ traceId: root.traceId, parentId: sub.id, parentIsRoot: false });
  });

  test("an error line marks the session; other events are instants; an open session is closed on demand", () => {
    const { out, a } = assemble([
      { ts: at(0), type: "agent_event", session_id: "main-e", event: "turn_start" },
      { ts: at(1), type: "agent_event", session_id: "main-e", event: "provider_failover", from: "openai" },
      { ts: at(2), type: "error", session_id: "main-e", code: "provider_unavailable", message: "down" },
      { ts: at(3), type: "channel_msg", channel: "telegram", direction: "in" },
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ name: "provider_failover", startMs: Date.parse(at(1)), endMs: Date.parse(at(1)) });
    a.closeAll();
    expect(out[1]).toMatchObject({
      root: true,
      error: { type: "provider_unavailable", message: "down" },
      endMs: Date.parse(at(2)),
    });
  });
});
