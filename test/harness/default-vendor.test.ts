import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { createHarnessTools, harnessToolList } from "../../src/capabilities/builtins/coding-harness.ts";
import { splitSurface } from "../../src/capabilities/deferral/split.ts";
import type { Config } from "../../src/config/schema.ts";
import { harnessCapabilityRows } from "../../src/harness/capability-rows.ts";
import { offeredHarness } from "../../src/harness/gate.ts";
import { installFakeVendors } from "../fake/harness/install.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

/*
 * [fermix_core.harness] default_vendor: only that vendor's run tool is advertised (provider tools, the prompt's
 * catalog, tool_search, `fermix capabilities`), while a model call of the other by its exact name still dispatches.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-default-vendor-0123456789";
const operator = { trust: "operator" as const, local: true, attended: true };

async function owner(toolSearch = true) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  const bin = installFakeVendors(join(h.userHome, "bin"));
  const repo = join(h.home, "workspace", "app");
  mkdirSync(repo, { recursive: true });
  h.writeConfig(
    [
      "[fermix_core.harness]",
      "approved = true",
      'default_vendor = "codex"',
      ...(toolSearch ? [] : ["[fermix_core.tools.tool_search]", "enabled = false"]),
      "",
    ].join("\n"),
  );
  const app = await createApp({
    env: {
      FERMIX_HOME: h.home,
      HOME: h.userHome,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: llm.baseUrl,
      PATH: `${bin}:/usr/bin:/bin`,
    },
  });
  defer(() => app.close());
  return { app, llm, repo, bin };
}

const sentNames = (body: any): string[] => body.tools.map((t: any) => t.name);

describe("default_vendor", () => {
  test("the gate keeps the other vendor quiet: callable in the split, neither sent nor deferred", () => {
    const config = { fermix_core: { harness: { approved: true, default_vendor: "codex" } } } as Config;
    const offer = offeredHarness(config, () => true);
    expect(offer).toEqual({ history: true, vendors: ["codex"], quiet: ["claude"] });
    const tools = harnessToolList(createHarnessTools({ service: () => Promise.reject(new Error("unused")) }), offer);
    for (const enabled of [true, false]) {
      const split = splitSurface(tools, { enabled, isDeferrable: (t) => t.deferrable === true });
      const names = (list: readonly { name: string }[]) => list.map((t) => t.name);
      expect([...names(split.sent), ...names(split.deferred)]).not.toContain("claude_code_run");
      expect(names(split.callable)).toContain("claude_code_run");
      expect([...names(split.sent), ...names(split.deferred)]).toContain("codex_run");
    }
    // Missing CLI: a quiet vendor is only offered when found, like an advertised one.
    expect(offeredHarness(config, (v) => v === "codex").quiet).toEqual([]);
  });

  test("the other vendor's run tool is neither sent, named nor found, yet a call by its name dispatches", async () => {
    const { app, llm, repo } = await owner();
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "tool_search", arguments: { query: "claude code coding run delegate" } }] },
      { kind: "tool_calls", calls: [{ name: "claude_code_run", arguments: { prompt: "fix it", cwd: repo } }] },
      { kind: "tool_calls", calls: [{ name: "tool_call", arguments: { name: "claude_code_run", arguments: {} } }] },
      { kind: "text", text: "done" },
    );
    await app.ask({ key: { channel: "cli", chat: "dv" }, caller: operator, text: "use claude code" });
    // Later requests carry the model's own call in their input; the tools and the prompt never name the tool.
    for (const req of llm.requests) {
      expect(JSON.stringify(req.body.tools)).not.toContain("claude_code_run");
      expect(sentNames(req.body)).not.toContain("claude_code_run");
      expect(String(req.body.instructions)).not.toContain("claude_code_run");
    }
    // codex_run stays on request, named in the catalog as before.
    expect(String(llm.requests[0]!.body.instructions)).toContain("codex_run");
    const [search] = toolOutputs(llm.requests[1]!);
    expect(search).toContain("codex_run");
    expect(search).not.toContain("claude_code_run");
    // The direct call reached the tool: refused for this process (a one-shot ask), not "no such tool".
    const [direct] = toolOutputs(llm.requests[2]!).slice(-1);
    expect(direct).not.toContain("There is no tool named");
    expect(direct).toStartWith("Refused (daemon_required)");
    // Through the bridge too: the tool's own schema answers (prompt and cwd are required).
    const [bridged] = toolOutputs(llm.requests[3]!).slice(-1);
    expect(bridged).not.toContain("There is no tool named");
    expect(bridged).toContain("prompt");
  });

  test("with tool-schema deferral off the other run tool is still off the wire and callable", async () => {
    const { app, llm, repo } = await owner(false);
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "claude_code_run", arguments: { prompt: "fix it", cwd: repo } }] },
      { kind: "text", text: "done" },
    );
    await app.ask({ key: { channel: "cli", chat: "dv2" }, caller: operator, text: "use claude code" });
    const first = llm.requests[0]!.body;
    expect(sentNames(first)).toContain("codex_run");
    expect(sentNames(first)).not.toContain("claude_code_run");
    expect(String(first.instructions)).not.toContain("claude_code_run");
    expect(toolOutputs(llm.requests[1]!).at(-1)).toStartWith("Refused (daemon_required)");
  });

  test("fermix capabilities lists only the default vendor's run tool", async () => {
    const { bin } = await owner();
    const config = { fermix_core: { harness: { approved: true, default_vendor: "claude" } } } as never;
    expect(harnessCapabilityRows(config, `${bin}:/usr/bin:/bin`).map((r) => r.name)).toEqual([
      "claude_code_run",
      "list_coding_runs",
      "get_coding_run",
      "cancel_coding_run",
    ]);
  });
});
