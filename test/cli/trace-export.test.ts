import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { type Recorded, startFakeOpik, startFakeOtlp } from "../fake/trace-collectors.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-openai-0123456789abcdef";
const OPIK_KEY = "opik-key-0123456789abcdef";
const defer = cleanupAfterEach();

async function setup(config = "") {
  const h = tempHome();
  const openai = await startFakeOpenAIResponses({ apiKey: KEY });
  openai.setDefault({ kind: "text", text: "pong" });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => openai.close());
  h.writeConfig(`[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n${config}`);
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: openai.baseUrl };
  return { h, env };
}

const bodies = (requests: Recorded[], path: string, field: string) =>
  requests.filter((r) => r.path === path).flatMap((r) => r.body[field] as any[]);

describe("trace export through the binary", () => {
  test("Opik: one trace per turn with its model call nested under it, the key as authorization", async () => {
    const opik = await startFakeOpik({ apiKey: OPIK_KEY, workspace: "ada" });
    defer(() => opik.close());
    const { env } = await setup();
    const r = await runFermix(["ask", "ping"], {
      env: {
        ...env,
        FERMIX_OPIK_ENABLED: "1",
        FERMIX_OPIK_BASE_URL: opik.baseUrl,
        FERMIX_OPIK_PROJECT: "fermix-test",
        OPIK_API_KEY: OPIK_KEY,
        OPIK_WORKSPACE: "ada",
      },
    });
    expect(r).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    // The ask sends what is queued before it exits.
    const traces = bodies(opik.requests, "/api/v1/private/traces/batch", "traces");
    const spans = bodies(opik.requests, "/api/v1/private/spans/batch", "spans");
    for (const req of opik.requests) {
      expect(req.status).toBe(204);
      expect(req.method).toBe("POST");
      expect(req.headers.authorization).toBe(OPIK_KEY);
      expect(req.headers["comet-workspace"]).toBe("ada");
    }
    expect(traces).toHaveLength(1);
    const trace = traces[0];
    expect(trace).toMatchObject({ project_name: "fermix-test", name: "turn", tags: ["fermix"] });
    expect(trace.metadata.session_id).toMatch(/^main-[0-9a-f]+$/);
    expect(Date.parse(trace.end_time)).toBeGreaterThanOrEqual(Date.parse(trace.start_time));
    const llm = spans.find((s) => s.type === "llm");
    expect(llm).toMatchObject({ trace_id: trace.id, provider: "openai", project_name: "fermix-test" });
    expect(llm.parent_span_id).toBeUndefined();
    // FERMIX_OPIK_ENABLED turns content capture on (the spec's rule): the answer rides along.
    expect(JSON.stringify(llm.output)).toContain("pong");
  });

  test("Opik with FERMIX_TRACE_CONTENT=0: the spans carry no bodies", async () => {
    const opik = await startFakeOpik();
    defer(() => opik.close());
    const { env } = await setup();
    const r = await runFermix(["ask", "ping"], {
      env: { ...env, FERMIX_OPIK_ENABLED: "1", FERMIX_OPIK_BASE_URL: opik.baseUrl, FERMIX_TRACE_CONTENT: "0" },
    });
    expect(r.code).toBe(0);
    const spans = bodies(opik.requests, "/api/v1/private/spans/batch", "spans");
    expect(opik.requests.every((q) => q.status === 204)).toBe(true);
    const llm = spans.find((s) => s.type === "llm");
    expect(llm).toBeDefined();
    expect(llm.input).toBeUndefined();
    expect(llm.output).toBeUndefined();
    expect(bodies(opik.requests, "/api/v1/private/traces/batch", "traces")[0].project_name).toBe("fermix");
  });

  test("OTLP: resourceSpans with hex ids, nanosecond strings and the model span under the turn's root", async () => {
    const otlp = await startFakeOtlp({ headers: { authorization: "Bearer otlp-token-0123456789" } });
    defer(() => otlp.close());
    const { env } = await setup(`[fermix_core.observability]\notlp_enabled = true\n`);
    const r = await runFermix(["ask", "ping"], {
      env: {
        ...env,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.baseUrl,
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20otlp-token-0123456789",
      },
    });
    expect(r).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    expect(otlp.requests.length).toBeGreaterThan(0);
    const req = otlp.requests[0]!;
    expect(req.path).toBe("/v1/traces");
    expect(otlp.requests.map((q) => q.status)).toEqual(otlp.requests.map(() => 200));
    expect(req.headers["content-type"]).toBe("application/json");
    const rs = req.body.resourceSpans[0];
    expect(rs.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "fermix" } });
    const spans = otlp.requests.flatMap((q) => q.body.resourceSpans[0].scopeSpans[0].spans);
    const root = spans.find((s: any) => s.name === "turn");
    const llm = spans.find((s: any) => s.kind === 3);
    expect(root.parentSpanId).toBeUndefined();
    expect(llm.traceId).toBe(root.traceId);
    expect(llm.parentSpanId).toBe(root.spanId);
    expect(llm.attributes).toContainEqual({ key: "gen_ai.system", value: { stringValue: "openai" } });
    expect(BigInt(llm.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(llm.startTimeUnixNano));
    // Capture is off unless asked for: no bodies in the attributes.
    expect(llm.attributes.some((a: any) => a.key === "fermix.output")).toBe(false);
  });

  test("a collector that accepts and never answers does not hold up the answer", async () => {
    const otlp = await startFakeOtlp({ hang: true });
    const opik = await startFakeOpik({ hang: true });
    defer(() => otlp.close());
    defer(() => opik.close());
    const { env } = await setup(`[fermix_core.observability]\notlp_enabled = true\ntimeout_seconds = 1\n`);
    const r = await runFermix(["ask", "ping"], {
      env: {
        ...env,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.baseUrl,
        FERMIX_OPIK_ENABLED: "1",
        FERMIX_OPIK_BASE_URL: opik.baseUrl,
      },
    });
    // The turn answered while both collectors still held their requests open.
    expect(r).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    expect(otlp.requests.length).toBeGreaterThan(0);
    expect(opik.requests.length).toBeGreaterThan(0);
  }, 60_000);

  test("doctor: off, enabled, ready with --full, and the error from a refusing collector", async () => {
    const opik = await startFakeOpik({ apiKey: OPIK_KEY, workspace: "ada" });
    defer(() => opik.close());
    const { env } = await setup();
    const row = async (extra: Record<string, string>, full = false) => {
      const r = await runFermix(["doctor", "--json", ...(full ? ["--full"] : [])], { env: { ...env, ...extra } });
      return JSON.parse(r.stdout).result.rows.find((x: any) => x.id === "trace-export");
    };
    expect(await row({})).toMatchObject({ status: "ok", detail: expect.stringContaining("off") });
    const on = { FERMIX_OPIK_ENABLED: "1", FERMIX_OPIK_BASE_URL: opik.baseUrl, OPIK_WORKSPACE: "ada" };
    expect(await row({ ...on, OPIK_API_KEY: OPIK_KEY })).toMatchObject({
      status: "ok",
      detail: expect.stringContaining(`enabled: Opik ${opik.baseUrl} (project fermix, workspace ada)`),
    });
    const ready = await row({ ...on, OPIK_API_KEY: OPIK_KEY }, true);
    expect(ready).toMatchObject({ status: "ok", detail: expect.stringContaining("ready: Opik") });
    const refused = await row({ ...on, OPIK_API_KEY: "opik-wrong-0123456789abcdef" }, true);
    expect(refused.status).toBe("fail");
    expect(refused.detail).toContain("401");
    expect(refused.detail).not.toContain("opik-wrong-0123456789abcdef");
    const bad = await row({ FERMIX_OPIK_ENABLED: "1", FERMIX_OPIK_BASE_URL: "not a url" });
    expect(bad).toMatchObject({ status: "fail", detail: expect.stringContaining("FERMIX_OPIK_BASE_URL") });
  });

  test("the daemon exports beside its turns, and doctor reports what the daemon (not this shell) does", async () => {
    const opik = await startFakeOpik();
    defer(() => opik.close());
    const { env } = await setup(
      `[fermix_web]\nenabled = false\n[fermix_core.observability]\nflush_interval_seconds = 0.2\n`,
    );
    const opikEnv = { FERMIX_OPIK_ENABLED: "1", FERMIX_OPIK_BASE_URL: opik.baseUrl };
    const daemon = await startFermixDaemon({ ...env, ...opikEnv });
    defer(() => daemon.stop());
    const r = await runFermix(["ask", "--daemon", "ping"], { env });
    expect(r).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    // The interval sends the turn's spans while the daemon keeps running.
    await opik.waitFor((reqs) => reqs.some((q) => q.path.endsWith("/traces/batch") && q.status === 204));
    const row = async (extra: Record<string, string> = {}) => {
      const d = await runFermix(["doctor", "--json"], { env: { ...env, ...extra } });
      return JSON.parse(d.stdout).result.rows.find((x: any) => x.id === "trace-export");
    };
    const fromDaemon = await row();
    expect(fromDaemon.status).toBe("ok");
    expect(fromDaemon.detail).toContain(`the daemon exports to ${opik.baseUrl} (project fermix)`);
    expect(fromDaemon.detail).toMatch(/sent \d+ spans to opik/);
    await daemon.stop();
    const plain = await startFermixDaemon(env);
    defer(() => plain.stop());
    const onlyHere = await row(opikEnv);
    expect(onlyHere).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("the running daemon exports nothing"),
    });
  });

  test("behind the daemon, a hung collector never holds up a turn", async () => {
    const otlp = await startFakeOtlp({ hang: true });
    defer(() => otlp.close());
    const { env } = await setup(
      `[fermix_web]\nenabled = false\n[fermix_core.observability]\notlp_enabled = true\nbatch_size = 1\ntimeout_seconds = 60\n`,
    );
    const daemon = await startFermixDaemon({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.baseUrl });
    defer(() => daemon.stop());
    const first = await runFermix(["ask", "--daemon", "ping"], { env });
    expect(first).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    // The collector holds the first batch open (for up to a minute); the next turn answers all the same.
    await otlp.waitFor((reqs) => reqs.length > 0);
    const second = await runFermix(["ask", "--daemon", "ping again"], { env });
    expect(second).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    expect(otlp.requests.every((q) => q.status === undefined)).toBe(true);
    // Let the held requests go, so the daemon's stop (which sends what is left) is not kept waiting.
    await otlp.close();
  }, 60_000);
});
