import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../../fake/llm.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../../fixture/cli.ts";
import { tempHome } from "../../fixture/home.ts";
import { toolOutputs } from "../../fixture/tool-outputs.ts";
import { isGone, loggedPids } from "../../plugins/mcp-rail/_fixture.ts";
import { EVERYTHING, envOf, FAKE_STDIO, KEY, serverToml } from "./_fixture.ts";

/**
 * The owner's [mcp.servers] on the compiled binary: a real turn calls server-everything's tool; a server that
 * hangs on initialize costs a one-shot ask at most the 3 s first-discovery bound, once, and the daemon's asks
 * nothing; a SIGKILLed daemon's servers are reaped by the next one.
 */
const defer = cleanupAfterEach();
/** The one-shot bound (3 s) plus the binary's own start and a turn against the fake model. */
const FIRST_ASK_BOUND_MS = 6_000;
const ASK_BOUND_MS = 2_500;

async function setup(config: (pidLog: string) => string) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  llm.setDefault({ kind: "text", text: "pong" });
  const pidLog = join(h.userHome, "server.pids");
  h.writeConfig(config(pidLog));
  // node must be on the PATH the binary gives the server.
  const env = { ...envOf(h, llm.baseUrl), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  defer(async () => {
    for (const pid of await loggedPids(pidLog)) if (!isGone(pid)) process.kill(pid, "SIGKILL");
  });
  return { h, llm, env, pidLog };
}

const fake = (pidLog: string, mode: "silent" | "normal") =>
  serverToml("stub", { command: "node", args: [FAKE_STDIO], env: { MODE: mode, PID_LOG: pidLog, HELPER: "true" } });

async function timed(args: string[], env: Record<string, string>) {
  const started = performance.now();
  const r = await runFermix(args, { env });
  return { ...r, ms: performance.now() - started };
}

async function waitFor(check: () => Promise<boolean>, deadlineMs = 30_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not reached within ${deadlineMs} ms`);
    await Bun.sleep(20);
  }
}

describe("fermix ask --no-daemon with [mcp.servers]", () => {
  test("the model calls mcp_everything_echo and the tool's result reaches it; capabilities lists the tools", async () => {
    const { llm, env } = await setup(() => serverToml("everything", { command: "node", args: [EVERYTHING, "stdio"] }));
    llm.enqueue({
      kind: "tool_calls",
      calls: [{ name: "tool_call", arguments: { name: "mcp_everything_echo", arguments: { message: "hi" } } }],
    });
    llm.setDefault((req) => ({ kind: "text", text: toolOutputs(req).join("") }));
    const r = await runFermix(["ask", "--no-daemon", "echo hi"], { env });
    expect(r.code).toBe(0);
    expect(toolOutputs(llm.requests[1]!)[0]).toContain("Echo: hi");
    expect(r.stdout).toContain("Echo: hi");

    const caps = await runFermix(["capabilities", "--kind", "mcp", "--json"], { env });
    const rows = JSON.parse(caps.stdout).result.capabilities as Array<{ name: string; policy: string }>;
    expect(rows.find((row) => row.name === "mcp_everything_echo")).toMatchObject({ policy: "external_api" });
    const doctor = await runFermix(["doctor"], { env });
    expect(doctor.stdout).toMatch(/MCP servers +everything \(node\): \d+ tools at the last discovery/);
  }, 60_000);

  test("a server that hangs on initialize: the first ask waits at most the bound, the next not at all; doctor says why", async () => {
    const { env, pidLog } = await setup((pids) => fake(pids, "silent"));
    const first = await timed(["ask", "--no-daemon", "ping"], env);
    expect(first).toMatchObject({ code: 0, stdout: "pong\n" });
    expect(first.ms).toBeLessThan(FIRST_ASK_BOUND_MS);
    expect(first.ms).toBeGreaterThan(2_900);
    const second = await timed(["ask", "--no-daemon", "ping"], env);
    expect(second).toMatchObject({ code: 0, stdout: "pong\n" });
    expect(second.ms).toBeLessThan(ASK_BOUND_MS);
    // Nothing the asks started outlives them.
    expect((await loggedPids(pidLog)).filter((pid) => !isGone(pid))).toEqual([]);
    const doctor = await runFermix(["doctor"], { env });
    expect(doctor.stdout).toMatch(/warn MCP servers +stub \(node\): not reachable at .*no tool list within 3 s/);
    expect(doctor.stdout).toContain("by hand to see why");
  }, 60_000);
});

describe("the daemon with [mcp.servers]", () => {
  test("a hung server never delays ask ping through the daemon; doctor shows it starting", async () => {
    const { env, pidLog } = await setup((pids) => fake(pids, "silent"));
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    await waitFor(async () => (await loggedPids(pidLog)).length >= 2);
    const ping = await timed(["ask", "ping"], env);
    expect(ping).toMatchObject({ code: 0, stdout: "pong\n" });
    expect(ping.ms).toBeLessThan(ASK_BOUND_MS);
    const doctor = await runFermix(["doctor"], { env });
    expect(doctor.stdout).toMatch(/ok +MCP servers +stub \(node\): starting \(discovery attempt \d\/5/);
    expect(await daemon.stop()).toBe(0);
    expect((await loggedPids(pidLog)).filter((pid) => !isGone(pid))).toEqual([]);
  }, 60_000);

  test("a SIGKILLed daemon's server (and its helper) is reaped when the next daemon starts", async () => {
    const { env, pidLog } = await setup((pids) => fake(pids, "normal"));
    const first = await startFermixDaemon(env);
    defer(() => first.stop());
    await waitFor(async () => (await loggedPids(pidLog)).length >= 2);
    const orphans = await loggedPids(pidLog);
    process.kill(first.pid, "SIGKILL");
    await first.stop();
    // Without the reaper these would live on under init.
    expect(orphans.filter((pid) => isGone(pid))).toEqual([]);
    const second = await startFermixDaemon(env);
    defer(() => second.stop());
    expect(orphans.filter((pid) => !isGone(pid))).toEqual([]);
    expect(await second.stop()).toBe(0);
  }, 60_000);
});
