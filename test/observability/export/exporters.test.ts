import { describe, expect, test } from "bun:test";
import { createTraceExport, planTraceExport } from "../../../src/observability/export/trace-export.ts";
import { createTraces } from "../../../src/observability/traces.ts";
import { startFakeOpik, startFakeOtlp } from "../../fake/trace-collectors.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";

const defer = cleanupAfterEach();
const SECRET = "sk-proj-abcdefghijklmnop0123456789";

/** A turn with a sub-agent, written through the real trace writer with both exporters behind it. */
async function traceATurn(env: Record<string, string>, config = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const plan = planTraceExport(env, config, { env, secretsDir: "/nonexistent" });
  const exporter = createTraceExport(plan, { fetch })!;
  const traces = createTraces({ dir: `${h.home}/traces`, capture: true, onRecord: exporter.record });
  const w = (type: Parameters<typeof traces.write>[0], r: Record<string, unknown>) => traces.write(type, r);
  w("agent_event", { session_id: "main-1", event: "turn_start" });
  w("agent_event", { session_id: "ab12", parent_session_id: "main-1", event: "subagent_start" });
  w("llm_call", {
    session_id: "ab12",
    provider: "openai",
    model: "m",
    duration_ms: 5,
    status: "ok",
    output: { text: `key ${SECRET}` },
  });
  w("tool_exec", {
    session_id: "ab12",
    tool: "shell",
    status: "ok",
    duration_ms: 1,
    arguments: { cmd: "ls" },
    output: "a\nb",
  });
  w("agent_event", { session_id: "ab12", parent_session_id: "main-1", event: "subagent_end", status: "ok" });
  w("agent_event", { session_id: "main-1", event: "turn_end", status: "ok" });
  await exporter.close();
  return exporter;
}

describe("exporters behind the trace writer", () => {
  test("Opik: the sub-agent is a span in the parent's trace, its calls under it; secrets redacted", async () => {
    const opik = await startFakeOpik();
    defer(() => opik.close());
    const exporter = await traceATurn({ FERMIX_OPIK_ENABLED: "1", FERMIX_OPIK_BASE_URL: opik.baseUrl });
    expect(opik.requests.every((r) => r.status === 204)).toBe(true);
    const traces = opik.requests.flatMap((r) => r.body.traces ?? []);
    const spans = opik.requests.flatMap((r) => r.body.spans ?? []);
    expect(traces).toHaveLength(1);
    const sub = spans.find((s) => s.name === "subagent");
    const llm = spans.find((s) => s.type === "llm");
    const tool = spans.find((s) => s.type === "tool");
    expect(sub.trace_id).toBe(traces[0].id);
    expect(sub.parent_span_id).toBeUndefined();
    expect(llm.parent_span_id).toBe(sub.id);
    expect(tool).toMatchObject({ parent_span_id: sub.id, input: { cmd: "ls" }, output: { output: "a\nb" } });
    const sent = JSON.stringify(opik.requests.map((r) => r.body));
    expect(sent).not.toContain(SECRET);
    expect(sent).toContain("[REDACTED:openai]");
    expect(exporter.status()[0]).toMatchObject({ name: "opik", sent: 4, dropped: 0, failedBatches: 0 });
  });

  test("OTLP: one trace id, and parents linked by span id", async () => {
    const otlp = await startFakeOtlp();
    defer(() => otlp.close());
    const exporter = await traceATurn(
      {},
      { fermix_core: { observability: { otlp_enabled: true, otlp_endpoint: otlp.baseUrl } } },
    );
    const spans = otlp.requests.flatMap((r) => r.body.resourceSpans[0].scopeSpans[0].spans);
    expect(new Set(spans.map((s: any) => s.traceId)).size).toBe(1);
    const root = spans.find((s: any) => s.name === "turn");
    const sub = spans.find((s: any) => s.name === "subagent");
    expect(sub.parentSpanId).toBe(root.spanId);
    expect(spans.find((s: any) => s.kind === 3).parentSpanId).toBe(sub.spanId);
    expect(exporter.status()[0]).toMatchObject({ name: "otlp", sent: 4, failedBatches: 0 });
  });

  test("a collector that refuses: the batch is dropped, the turn never knew", async () => {
    const warnings: string[] = [];
    const log = { warn: (m: string) => warnings.push(m), info() {}, debug() {}, error() {}, withTag: () => log } as any;
    const env = { FERMIX_OPIK_ENABLED: "1", FERMIX_OPIK_BASE_URL: "http://127.0.0.1:9/api" };
    const plan = planTraceExport(env, {}, { env, secretsDir: "/nonexistent" });
    const exporter = createTraceExport(plan, { fetch, log })!;
    exporter.record({ ts: new Date().toISOString(), type: "agent_event", session_id: "main-2", event: "turn_start" });
    exporter.record({ ts: new Date().toISOString(), type: "agent_event", session_id: "main-2", event: "turn_end" });
    await exporter.close();
    expect(exporter.status()[0]).toMatchObject({ sent: 0, failedBatches: 1 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("Opik trace export to http://127.0.0.1:9/api (project fermix) failed");
  });
});
