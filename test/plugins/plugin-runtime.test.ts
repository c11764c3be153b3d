import { describe, expect, test } from "bun:test";
import { copyFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ToolContext } from "../../src/capabilities/tool.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { Config } from "../../src/config/schema.ts";
import { createLog } from "../../src/observability/log.ts";
import { createMcpSupervisor, type McpSupervisorDeps } from "../../src/plugins/mcp-rail/supervisor.ts";
import { createToolCache } from "../../src/plugins/mcp-rail/tool-cache.ts";
import type { TokenStore } from "../../src/plugins/oauth/token-store.ts";
import type { PluginHost, PluginState } from "../../src/plugins/plugin-host-contract.ts";
import { createPluginRuntime } from "../../src/plugins/plugin-runtime.ts";
import type { PluginRuntime, PluginView } from "../../src/plugins/plugin-runtime-contract.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { FAKE_SERVER, isGone, loggedPids, tempDir, writeMcpPlugin } from "./mcp-rail/_fixture.ts";

/**
 * What turns see of the plugins: computed once per change rather than per turn, and never waiting on an MCP
 * server — the daemon starts servers in the background, a one-shot ask only when the model calls a tool.
 */
const defer = cleanupAfterEach();

const DISCOVERED = ["fake_env", "fake_cwd", "fake_echo", "fake_crash"];
const DOCTOR_FIX = "fermix plugins doctor fake shows why; fix that, then fermix plugins reload";

/** Only what the runtime asks of a host, answering with the given states and counting the calls. */
function fakeHost(states: PluginState[]) {
  const calls = { activeStates: 0, problems: 0, states: 0 };
  const host = {
    activeStates: async (_config: Config) => {
      calls.activeStates++;
      return states;
    },
    problems: async (_config: Config) => {
      calls.problems++;
      return [];
    },
    states: async (_config: Config) => {
      calls.states++;
      return states;
    },
  } satisfies Pick<PluginHost, "activeStates" | "problems" | "states">;
  return { host: host as unknown as PluginHost, calls };
}

/** No plugin here signs in: the runtime only reads a token for an OAuth plugin. */
const noTokens = { get: () => undefined } as Pick<TokenStore, "get"> as TokenStore;

async function setup(opts: {
  serverStart: "eager" | "lazy";
  supervisor?: McpSupervisorDeps;
  /** A server that writes to stderr and exits with code 7 before answering. */
  crashing?: boolean;
}) {
  const root = await tempDir("fermix-plugin-runtime-");
  defer(root.remove);
  const pidLog = join(root.path, "pids.log");
  // Whatever a failing test leaves, no server outlives it.
  defer(async () => {
    for (const pid of await loggedPids(pidLog)) if (!isGone(pid)) process.kill(pid, "SIGKILL");
  });
  const plugin = await writeMcpPlugin(root.path, "fake", { copyFake: !opts.crashing });
  const serverFile = join(plugin.dir, "src", "server.mjs");
  if (opts.crashing) {
    await writeFile(
      serverFile,
      [
        'import { appendFileSync } from "node:fs";',
        "appendFileSync(process.env.PID_LOG, String(process.pid) + '\\n');",
        "console.error(\"Error: Cannot find module 'left-pad'\");",
        "process.exit(7);",
      ].join("\n"),
    );
  }
  const state: PluginState = {
    name: "fake",
    source: "dev_local",
    description: "A plugin for MCP rail tests.",
    version: plugin.manifest.version,
    dir: plugin.dir,
    manifest: plugin.manifest,
    enabled: true,
    status: "ready",
  };
  const { host, calls } = fakeHost([state]);
  let signature = "inputs-1";
  // Wired as plugin-runtime-factory.ts wires them: a server's change reaches the runtime.
  let runtime: PluginRuntime | undefined;
  const mcp = createMcpSupervisor({
    discoveryTimeoutMs: 10_000,
    sleep: async () => {},
    onChange: () => runtime?.serverChanged(),
    ...opts.supervisor,
  });
  defer(() => mcp.stopAll());
  const toolCache = createToolCache(join(root.path, "tool-cache"));
  runtime = createPluginRuntime({
    host,
    tokens: noTokens,
    mcp,
    toolCache,
    env: process.env,
    log: createLog({}),
    resolveSecret: () => {
      throw new Error("no secrets in these tests");
    },
    serverStart: opts.serverStart,
    callWaitMs: 20_000,
    inputsSignature: () => signature,
  });
  /** A fresh object each time, as each edit of config.toml gives the live config. */
  const config = (): Config =>
    parseConfig(
      [
        "[fermix_core.plugins]",
        'enabled = ["fake"]',
        "[fermix_core.plugins.fake]",
        'MODE = "normal"',
        `PID_LOG = ${JSON.stringify(pidLog)}`,
      ].join("\n"),
      "config.toml",
    );
  return {
    runtime,
    mcp,
    calls,
    toolCache,
    plugin,
    serverFile,
    pidLog,
    config,
    changeInputs: (next: string) => {
      signature = next;
    },
  };
}

const names = (view: PluginView) => view.tools().map((t) => t.name);

/** Runs one of the view's tools as the agent would. */
async function callTool(view: PluginView, name: string, args: Record<string, unknown>) {
  const tool = view.tools().find((t) => t.name === name);
  if (!tool) throw new Error(`${name} is not offered; offered: ${names(view).join(", ")}`);
  return tool.execute(args, { signal: new AbortController().signal } as unknown as ToolContext);
}

describe("no per-turn cost", () => {
  test("turns with the same config and inputs reuse one computation of the plugin states", async () => {
    const { runtime, calls, config } = await setup({ serverStart: "lazy" });
    const same = config();
    await runtime.forTurn(same);
    await runtime.forTurn(same);
    await Promise.all([runtime.forTurn(same), runtime.forTurn(same)]);

    expect(calls.activeStates).toBe(1);
    expect(calls.problems).toBe(1);
  });

  test("a changed input signature, or a new config, computes the states again", async () => {
    const { runtime, calls, config, changeInputs } = await setup({ serverStart: "lazy" });
    const first = config();
    await runtime.forTurn(first);

    changeInputs("inputs-2");
    await runtime.forTurn(first);
    expect(calls.activeStates).toBe(2);

    await runtime.forTurn(config());
    expect(calls.activeStates).toBe(3);
  });
});

describe("concurrent turns with different configs", () => {
  test("each gets the states of its own config, even while another's are being computed", async () => {
    const stateFor = (c: Config): PluginState[] =>
      (c.fermix_core?.plugins?.enabled ?? []).map((name) => ({
        name,
        source: "dev_local",
        description: "",
        enabled: true,
        status: "needs_config",
      }));
    const host = {
      activeStates: async (c: Config) => stateFor(c),
      problems: async () => [],
      states: async (c: Config) => stateFor(c),
    } as unknown as PluginHost;
    const supervisor = createMcpSupervisor();
    defer(() => supervisor.stopAll());
    const runtime = createPluginRuntime({
      host,
      tokens: noTokens,
      mcp: supervisor,
      toolCache: createToolCache("/nonexistent/fermix-tool-cache"),
      env: {},
      log: createLog({}),
      resolveSecret: () => "",
      serverStart: "lazy",
      callWaitMs: 0,
      inputsSignature: () => "same",
    });
    const a = parseConfig('[fermix_core.plugins]\nenabled = ["alpha"]', "a.toml");
    const b = parseConfig('[fermix_core.plugins]\nenabled = ["beta"]', "b.toml");
    const [va, vb] = await Promise.all([runtime.forTurn(a), runtime.forTurn(b)]);
    expect(va.summaries().map((s) => s.name)).toEqual(["alpha"]);
    expect(vb.summaries().map((s) => s.name)).toEqual(["beta"]);
  });
});

describe('serverStart "lazy" (a one-shot ask)', () => {
  test("a turn starts no server and offers the tools the manifest declares", async () => {
    const { runtime, mcp, pidLog, config } = await setup({ serverStart: "lazy" });
    const view = await runtime.forTurn(config());

    expect(names(view)).toEqual(["fake_echo"]);
    expect(view.tools()[0]!.description).toBe("Echo a message (preview).");
    expect(view.summaries()).toEqual([{ name: "fake", enabled: true, status: "ready", tools: ["fake_echo"] }]);
    expect(mcp.get("fake")).toBeUndefined();
    expect(await loggedPids(pidLog)).toEqual([]);
  });

  test("a turn offers the cached list of the last discovery, when it is for this version and folder", async () => {
    const { runtime, mcp, toolCache, plugin, config } = await setup({ serverStart: "lazy" });
    toolCache.write({ name: "fake", version: "1.0.0", dir: plugin.dir }, [
      { name: "fake_echo", mcpName: "echo", description: "Echo a message.", inputSchema: { type: "object" } },
      { name: "fake_cwd", mcpName: "cwd", description: "Report the working directory.", inputSchema: {} },
    ]);
    const view = await runtime.forTurn(config());

    expect(names(view)).toEqual(["fake_echo", "fake_cwd"]);
    expect(view.summaries()[0]!.tools).toEqual(["fake_echo", "fake_cwd"]);
    expect(mcp.get("fake")).toBeUndefined();
  });

  test("calling an offered tool starts the server; the view then offers the tools it discovered", async () => {
    const { runtime, mcp, config } = await setup({ serverStart: "lazy" });
    const view = await runtime.forTurn(config());
    const before = view.tools();

    expect(await callTool(view, "fake_echo", { message: "hi" })).toEqual({ content: "echo: hi" });
    expect(mcp.get("fake")?.status).toBe("ready");

    const after = view.tools();
    expect(after).not.toBe(before);
    expect(after.map((t) => t.name)).toEqual(DISCOVERED);
    expect(view.summaries()[0]).toMatchObject({ status: "ready", detail: "4 tools", tools: DISCOVERED });
  });
});

describe('serverStart "eager" (the daemon)', () => {
  test("a turn starts the server in the background; the summary goes from starting to ready", async () => {
    const { runtime, mcp, config } = await setup({ serverStart: "eager" });
    const view = await runtime.forTurn(config());

    expect(view.summaries()).toEqual([
      expect.objectContaining({ name: "fake", enabled: true, status: "starting", tools: ["fake_echo"] }),
    ]);
    expect(names(view)).toEqual(["fake_echo"]);

    await runtime.settled();
    expect(mcp.get("fake")?.status).toBe("ready");
    expect(view.summaries()).toEqual([
      { name: "fake", enabled: true, status: "ready", detail: "4 tools", fix: undefined, tools: DISCOVERED },
    ]);
    expect(names(view)).toEqual(DISCOVERED);
  });

  test("a quarantined server: its summary says why and how to fix it, and its tools are not offered", async () => {
    const { runtime, config } = await setup({ serverStart: "eager", crashing: true, supervisor: { maxAttempts: 2 } });
    const view = await runtime.forTurn(config());
    await runtime.settled();

    const [summary] = view.summaries();
    expect(summary).toMatchObject({ name: "fake", status: "quarantined", fix: DOCTOR_FIX, tools: [] });
    expect(summary!.detail).toContain("exited with code 7");
    expect(summary!.detail).toContain("Cannot find module 'left-pad'");
    expect(names(view)).toEqual([]);
  });

  test("reload starts a quarantined server fresh; states computed again alone do not", async () => {
    const { runtime, mcp, serverFile, config, changeInputs } = await setup({
      serverStart: "eager",
      crashing: true,
      supervisor: { maxAttempts: 2 },
    });
    const same = config();
    await runtime.forTurn(same);
    await runtime.settled();
    const quarantined = mcp.get("fake");
    expect(quarantined?.status).toBe("quarantined");

    // The owner fixes the plugin's server…
    await copyFile(FAKE_SERVER, serverFile);
    changeInputs("inputs-2");
    await runtime.forTurn(same);
    await runtime.settled();
    expect(mcp.get("fake")).toBe(quarantined!);

    // …and reloads.
    await runtime.reload(same);
    await runtime.settled();
    expect(mcp.get("fake")).not.toBe(quarantined!);
    expect(mcp.get("fake")?.status).toBe("ready");
    const view = await runtime.forTurn(same);
    expect(view.summaries()[0]).toMatchObject({ status: "ready", tools: DISCOVERED });
    expect(names(view)).toEqual(DISCOVERED);
  });

  test("a reload for a plugin author restarts a running dev_local server; the automatic one does not", async () => {
    const { runtime, mcp, config } = await setup({ serverStart: "eager" });
    const same = config();
    await runtime.forTurn(same);
    await runtime.settled();
    const running = mcp.get("fake");
    expect(running?.status).toBe("ready");

    await runtime.reload(same);
    await runtime.settled();
    expect(mcp.get("fake")).toBe(running!);

    await runtime.reload(same, { devLocal: true });
    await runtime.settled();
    expect(mcp.get("fake")).not.toBe(running!);
    expect(mcp.get("fake")?.status).toBe("ready");
  });
});
