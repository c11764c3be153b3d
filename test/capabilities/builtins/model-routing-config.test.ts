import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { modelRoutingConfig } from "../../../src/capabilities/builtins/model-routing-config.ts";
import { BUILTIN_TOOLS } from "../../../src/capabilities/builtins/registry.ts";
import type { Caller } from "../../../src/capabilities/caller.ts";
import { createRegistry } from "../../../src/capabilities/registry.ts";
import type { ToolContext, ToolResult } from "../../../src/capabilities/tool.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";

const defer = cleanupAfterEach();

const CONFIG = [
  "# the owner's notes stay",
  "[fermix_core.providers.openai]",
  "primary = true",
  'api_key = "sk-test-routing-0123456789"',
  "",
  "[fermix_core.providers.ollama]",
  'base_url = "http://127.0.0.1:11434/v1"',
  "",
  "[fermix_core.routing]",
  "# cron runs on the small model",
  'cron_model = "gpt-5.4-mini"',
  "",
].join("\n");

async function world(text = CONFIG) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const file = h.writeConfig(text);
  const run = async (args: Record<string, unknown>): Promise<ToolResult> => {
    const ctx = { config: await loadConfig(file), configFile: file } as unknown as ToolContext;
    const out = await modelRoutingConfig.execute(args as never, ctx);
    return typeof out === "string" ? { content: out } : out;
  };
  return { file, run, text: () => readFileSync(file, "utf8") };
}

describe("model_routing_config", () => {
  test("read lists every key, unset ones as inheriting; cron_* shown", async () => {
    const w = await world();
    const out = await w.run({ action: "read" });
    expect(out.isError).toBeUndefined();
    expect(out.content).toContain("cron_model: gpt-5.4-mini");
    expect(out.content).toContain("subagent_model: (unset: inherits the main agent's)");
  });

  test("read shows the live config.toml, not the config of start-up", async () => {
    const w = await world();
    // One context for the whole conversation, its config loaded once, as a daemon's turn holds it.
    const ctx = { config: await loadConfig(w.file), configFile: w.file } as unknown as ToolContext;
    const call = async (args: Record<string, unknown>) => {
      const out = await modelRoutingConfig.execute(args as never, ctx);
      return typeof out === "string" ? out : out.content;
    };
    await call({ action: "set", key: "subagent_model", value: "gpt-5.4-mini" });
    expect(await call({ action: "read" })).toContain("subagent_model: gpt-5.4-mini");
    // An edit of config.toml by hand shows as well, without a restart.
    writeFileSync(w.file, w.text().replace('cron_model = "gpt-5.4-mini"', 'cron_model = "gpt-5.5"'));
    expect(await call({ action: "read" })).toContain("cron_model: gpt-5.5");
    // A config.toml broken since start-up is named, not read past.
    writeFileSync(w.file, `${w.text()}\n[fermix_core.routing.nope\n`);
    const broken = await modelRoutingConfig.execute({ action: "read" } as never, ctx);
    expect(broken).toMatchObject({ isError: true });
  });

  test("set writes one line with the comments kept; delete removes it; the next read shows it", async () => {
    const w = await world();
    const set = await w.run({ action: "set", key: "subagent_model", value: "gpt-5.4-mini" });
    expect(set.isError).toBeUndefined();
    expect(set.content).toStartWith('subagent_model = "gpt-5.4-mini"');
    expect(w.text()).toContain("# the owner's notes stay");
    expect(w.text()).toContain("# cron runs on the small model");
    expect(w.text()).toContain('subagent_model = "gpt-5.4-mini"');
    const effort = await w.run({ action: "set", key: "subagent_reasoning_effort", value: "low" });
    expect(effort.isError).toBeUndefined();
    expect((await loadConfig(w.file)).fermix_core?.routing).toMatchObject({
      subagent_model: "gpt-5.4-mini",
      subagent_reasoning_effort: "low",
      cron_model: "gpt-5.4-mini",
    });
    const removed = await w.run({ action: "delete", key: "subagent_model" });
    expect(removed.content).toStartWith("subagent_model cleared");
    expect(w.text()).not.toContain("subagent_model");
    expect(w.text()).toContain("# cron runs on the small model");
  });

  test("refusals leave config.toml byte for byte: mis-pairing, unknown or unconfigured provider, blank, cron_*, bad effort", async () => {
    const w = await world();
    const before = w.text();
    const cases: Array<[Record<string, unknown>, string]> = [
      // An Anthropic model on the primary (OpenAI) provider: the catalog knows it under another provider.
      [{ action: "set", key: "subagent_model", value: "claude-sonnet-4-6" }, "is not a openai model"],
      [{ action: "set", key: "subagent_provider", value: "nonesuch" }, "is not a provider fermix knows"],
      [{ action: "set", key: "subagent_provider", value: "anthropic" }, "anthropic is not configured"],
      [{ action: "set", key: "subagent_model", value: "   " }, 'it is blank; use action "delete"'],
      [{ action: "set", key: "cron_model", value: "gpt-5.5" }, "cron_model is readable only"],
      [{ action: "delete", key: "cron_model" }, "cron_model is readable only"],
      [{ action: "set", key: "subagent_reasoning_effort", value: "extreme" }, "is not an effort"],
      [{ action: "set", key: "subagent_model" }, "set needs value"],
      [{ action: "delete" }, "delete needs key"],
    ];
    for (const [args, words] of cases) {
      const out = await w.run(args);
      expect(out.isError).toBe(true);
      expect(out.content).toContain(words);
      expect(w.text()).toBe(before);
    }
  });

  test("a model paired with the provider that serves it is accepted (validated as a whole)", async () => {
    const w = await world();
    expect((await w.run({ action: "set", key: "subagent_provider", value: "ollama" })).isError).toBeUndefined();
    expect((await w.run({ action: "set", key: "subagent_model", value: "llama3.2" })).isError).toBeUndefined();
    expect((await loadConfig(w.file)).fermix_core?.routing).toMatchObject({
      subagent_provider: "ollama",
      subagent_model: "llama3.2",
    });
  });

  test("deferred, and never offered to a guest", () => {
    const registry = createRegistry(BUILTIN_TOOLS);
    const owner: Caller = { trust: "operator", local: true, attended: true };
    const guest: Caller = { trust: "guest", local: false, attended: true };
    expect(modelRoutingConfig.deferrable).toBe(true);
    expect(registry.surface(owner).map((t) => t.name)).toContain("model_routing_config");
    expect(registry.surface(guest).map((t) => t.name)).not.toContain("model_routing_config");
  });
});
