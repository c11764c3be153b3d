/**
 * Failover is visible on the compiled binary: each hop leaves an agent_event line (provider_failover, from/to
 * route, reason class) in the traces beside its log line, and `fermix doctor` lists the fallbacks in order.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const OPENAI_KEY = "sk-test-openai-fo-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-test-fo-0123456789abcdef";
const defer = cleanupAfterEach();

/** OpenAI primary (catalog order), Anthropic then Ollama as fallbacks, all from the environment. */
async function chain() {
  const h = tempHome();
  const openai = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  const anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  const ollama = await startFakeChatCompletions({ flavor: "ollama" });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => openai.close());
  defer(() => anthropic.close());
  defer(() => ollama.close());
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: openai.baseUrl,
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
    OLLAMA_BASE_URL: ollama.baseUrl,
  };
  return { h, openai, anthropic, ollama, env };
}

/** Every agent_event line written under FERMIX_HOME/traces/<day>/agent_event.jsonl. */
function agentEvents(home: string): Array<Record<string, unknown>> {
  const root = join(home, "traces");
  return readdirSync(root).flatMap((day) => {
    let text = "";
    try {
      text = readFileSync(join(root, day, "agent_event.jsonl"), "utf8");
    } catch {}
    return text
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  });
}

describe("failover is visible", () => {
  test("a primary answering 503: the fallback answers and an agent_event line names the hop", async () => {
    const { h, openai, anthropic, env } = await chain();
    openai.setDefault({ kind: "error", status: 503 });
    anthropic.setDefault({ kind: "text", text: "answer from the fallback" });
    const r = await runFermix(["ask", "--no-daemon", "ping"], { env });
    expect(r).toEqual({ code: 0, stdout: "answer from the fallback\n", stderr: "" });

    const events = agentEvents(h.home);
    const hops = events.filter((e) => e.event === "provider_failover");
    expect(hops).toEqual([
      expect.objectContaining({
        type: "agent_event",
        event: "provider_failover",
        from: "openai",
        from_model: expect.any(String),
        to: "anthropic",
        to_model: expect.any(String),
        reason: "transient",
        http_status: 503,
      }),
    ]);
    // The hop belongs to the turn it happened in.
    const start = events.find((e) => e.event === "turn_start");
    expect(hops[0]!.session_id).toBe(start!.session_id);
    expect(JSON.stringify(events)).not.toContain(OPENAI_KEY);
    // …and the log line is still there.
    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    expect(log).toContain("failing over from openai to anthropic");
  });

  test("two hops down the chain: two lines, in order, each with its reason class", async () => {
    const { h, openai, anthropic, ollama, env } = await chain();
    openai.setDefault({ kind: "error", status: 429 });
    anthropic.setDefault({ kind: "error", status: 529 });
    ollama.setDefault({ kind: "text", text: "the local model answers" });
    const r = await runFermix(["ask", "--no-daemon", "ping"], { env });
    expect(r.stdout).toBe("the local model answers\n");
    const hops = agentEvents(h.home).filter((e) => e.event === "provider_failover");
    expect(hops.map((e) => [e.from, e.to, e.reason])).toEqual([
      ["openai", "anthropic", "rate_limit"],
      ["anthropic", "ollama", "transient"],
    ]);
  });

  test("doctor lists the configured fallbacks in failover order", async () => {
    const { env } = await chain();
    const r = await runFermix(["doctor"], { env });
    expect(r.stdout).toContain("providers  primary openai; fallbacks in order: anthropic → ollama\n");
  });

  test("doctor with a chosen primary: the others follow in catalog order", async () => {
    const { h, env } = await chain();
    h.writeConfig(
      [
        "[fermix_core.providers.ollama]",
        "primary = true",
        "[fermix_core.providers.anthropic]",
        "[fermix_core.providers.openai]",
        "",
      ].join("\n"),
    );
    const r = await runFermix(["doctor", "--json"], { env });
    const report = JSON.parse(r.stdout);
    const row = report.result.rows.find((x: { id: string }) => x.id === "providers");
    expect(row.detail).toBe("primary ollama; fallbacks in order: openai → anthropic");
  });
});
