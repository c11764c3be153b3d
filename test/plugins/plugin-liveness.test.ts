import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";
import { EVERYTHING, isGone, loggedPids, writeCrashingPlugin, writeMcpPlugin } from "./mcp-rail/_fixture.ts";

/**
 * The bar, on the compiled binary: whatever state a plugin is in — a server that never answers, one that
 * exits at once, a good one (server-everything) — `ask ping` answers at full speed, through the daemon and in
 * process; the states are the daemon's truth in `plugins list`; and no plugin process outlives fermix.
 */
const defer = cleanupAfterEach();
const KEY = "sk-test-liveness-0123456789";
/** The must-show bound for `ask ping` whatever the plugins do; a blocking discovery would take 10 s or more. */
const ASK_BOUND_MS = 2_000;

/** A dev_local root with the three servers, each logging its pids (and the hung one a helper's) to a file. */
async function setup(opts: { hungMode?: "silent" | "normal" } = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  llm.setDefault({ kind: "text", text: "pong" });
  const root = join(h.userHome, "plugins");
  await writeMcpPlugin(root, "hung"); // the fake server; MODE=silent never answers initialize
  await writeCrashingPlugin(root);
  const everything = await writeMcpPlugin(root, "everything", { copyFake: false });
  await writeFile(
    join(everything.dir, "src", "server.mjs"),
    [
      'import { appendFileSync } from "node:fs";',
      "appendFileSync(process.env.PID_LOG, String(process.pid) + '\\n');",
      `process.argv = [process.argv[0], ${JSON.stringify(EVERYTHING)}, "stdio"];`,
      `await import(${JSON.stringify(EVERYTHING)});`,
    ].join("\n"),
  );
  const pidLog = (name: string) => join(h.userHome, `${name}.pids`);
  const table = (name: string, extra = "") => `[fermix_core.plugins.${name}]\nPID_LOG = "${pidLog(name)}"\n${extra}`;
  h.writeConfig(
    [
      "[fermix_core.plugins]",
      'enabled = ["hung", "crash", "everything"]',
      `dev_local = "${root}"`,
      table("hung", `MODE = "${opts.hungMode ?? "silent"}"\nHELPER = true\n`),
      table("crash"),
      table("everything"),
    ].join("\n"),
  );
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.baseUrl,
    PATH: "/usr/bin:/bin",
  };
  const allPids = async () => [
    ...(await loggedPids(pidLog("hung"))),
    ...(await loggedPids(pidLog("crash"))),
    ...(await loggedPids(pidLog("everything"))),
  ];
  // Whatever a failing test leaves, no server outlives it.
  defer(async () => {
    for (const pid of await allPids()) if (!isGone(pid)) process.kill(pid, "SIGKILL");
  });
  return { h, llm, env, pidLog, allPids };
}

async function timedAsk(args: string[], env: Record<string, string>) {
  const started = performance.now();
  const result = await runFermix(["ask", ...args, "ping"], { env });
  return { ...result, ms: performance.now() - started };
}

type Listed = { daemon: boolean; plugins: Array<{ name: string; status: string; attempt?: number; reason?: string }> };

/** Polls `plugins list --json` (the daemon's truth) until `done` holds, or fails at the deadline. */
async function listUntil(
  env: Record<string, string>,
  done: (listed: Listed) => boolean,
  deadlineMs: number,
): Promise<Listed> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const r = await runFermix(["plugins", "list", "--json"], { env });
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout).result as Listed;
    if (done(listed)) return listed;
    if (Date.now() > until) throw new Error(`not reached within ${deadlineMs} ms: ${JSON.stringify(listed.plugins)}`);
    await Bun.sleep(250); // polling a state through the CLI, the way an owner would
  }
}

const status = (listed: Listed, name: string) => listed.plugins.find((p) => p.name === name);

describe("a broken plugin never holds a turn hostage", () => {
  test("daemon: ask ping at full speed with a hung, a crashing and a good server; live states; stop leaves nothing", async () => {
    const { env, llm, allPids } = await setup();
    const started = Date.now();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());

    const throughDaemon = await timedAsk([], env);
    expect(throughDaemon).toMatchObject({ code: 0, stdout: "pong\n" });
    expect(throughDaemon.ms).toBeLessThan(ASK_BOUND_MS);
    const inProcess = await timedAsk(["--no-daemon"], env);
    expect(inProcess).toMatchObject({ code: 0, stdout: "pong\n" });
    expect(inProcess.ms).toBeLessThan(ASK_BOUND_MS);

    // The crashing server is quarantined within 30 s, with its exit code and stderr as the reason.
    const crashed = await listUntil(
      env,
      (l) => status(l, "crash")?.status === "quarantined",
      30_000 - (Date.now() - started),
    );
    expect(crashed.daemon).toBe(true);
    expect(status(crashed, "crash")!.reason).toContain("exited with code 7");
    expect(status(crashed, "crash")!.reason).toContain("Cannot find module 'left-pad'");
    const everything = await listUntil(env, (l) => status(l, "everything")?.status === "ready", 30_000);
    expect(status(everything, "hung")).toMatchObject({ status: "starting" });
    expect(status(everything, "hung")!.attempt).toBeGreaterThanOrEqual(1);

    // While the hung one is still being retried, asks stay fast.
    const meanwhile = await timedAsk([], env);
    expect(meanwhile).toMatchObject({ code: 0, stdout: "pong\n" });
    expect(meanwhile.ms).toBeLessThan(ASK_BOUND_MS);
    const plainList = await runFermix(["plugins", "list"], { env });
    expect(plainList.stdout).toMatch(/^hung\t1\.0\.0\tdev_local\tenabled\tstarting\t—\tdiscovery attempt \d\/5$/m);
    const statusText = await runFermix(["status"], { env });
    expect(statusText.stdout).toContain("plugins: ready: everything");
    expect(statusText.stdout).toMatch(/plugins: crash quarantined \(.*exited with code 7/);

    // What the model is told: the good server's tools, the others' states and fixes; a quarantined plugin's
    // tool answers with the reason instead of running.
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "crash_echo", arguments: { message: "hi" } }] });
    llm.setDefault((req) => ({ kind: "text", text: toolOutputs(req).join("") }));
    const asked = await runFermix(["ask", "use crash"], { env });
    llm.setDefault({ kind: "text", text: "pong" });
    const instructions: string = llm.requests.at(-2)!.body.instructions;
    expect(instructions).toMatch(/- everything: everything_\w+/);
    expect(instructions).toMatch(/- hung: status=starting \(discovery attempt \d\/5\)/);
    expect(instructions).toMatch(
      /- crash: status=quarantined \(.*exited with code 7.*\); fix: fermix plugins doctor crash/,
    );
    expect(asked.stdout).toContain("crash_echo belongs to the crash plugin, which is quarantined");

    // The hung one: quarantined within 90 s (5 attempts of 10 s, and the backoff between them).
    const hung = await listUntil(
      env,
      (l) => status(l, "hung")?.status === "quarantined",
      90_000 - (Date.now() - started),
    );
    expect(status(hung, "hung")!.reason).toContain("no answer to discovery within 10 s");
    const doctor = await runFermix(["plugins", "doctor", "hung"], { env });
    expect(doctor.stdout).toContain("fermix plugins reload");
    const fullDoctor = await runFermix(["doctor"], { env });
    expect(fullDoctor.stdout).toMatch(
      /warn plugins +hung 1\.0\.0 \(dev_local\): quarantined — 5 discovery attempts failed/,
    );

    // reload starts a quarantined server fresh.
    expect((await runFermix(["plugins", "reload"], { env })).stdout).toContain("the daemon re-read its plugins");
    const restarted = await listUntil(env, (l) => status(l, "hung")?.status === "starting", 10_000);
    expect(status(restarted, "hung")!.attempt).toBeLessThanOrEqual(2);

    // Stop while nothing is left to retry, then check every server and helper ever started is gone.
    expect((await runFermix(["stop"], { env })).code).toBe(0);
    const pids = await allPids();
    expect(pids.length).toBeGreaterThanOrEqual(14); // hung: 6 × (server + helper); crash ≥ 1; everything 1
    expect(leftovers(pids)).toEqual([]);
  }, 150_000);

  test("fermix stop while a hung server is mid-discovery leaves no process", async () => {
    const { env, pidLog, allPids } = await setup();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    // The readiness signal: the hung server and its helper have written their pids.
    await waitFor(async () => (await loggedPids(pidLog("hung"))).length >= 2);
    expect((await runFermix(["stop"], { env })).code).toBe(0);
    expect((await allPids()).filter((pid) => !isGone(pid))).toEqual([]);
  }, 60_000);

  test("one-shot: ask ping starts no server at all; SIGTERM during a plugin call leaves no process", async () => {
    const { env, llm, pidLog, allPids } = await setup();
    const ping = await timedAsk([], env);
    expect(ping).toMatchObject({ code: 0, stdout: "pong\n" });
    expect(ping.ms).toBeLessThan(ASK_BOUND_MS);
    expect(await allPids()).toEqual([]);

    // The model calls the hung plugin's tool: the ask starts its server and waits on discovery.
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "hung_echo", arguments: { message: "hi" } }] });
    const proc = Bun.spawn([await fermixBinary(), "ask", "use hung"], { env, stdout: "pipe", stderr: "pipe" });
    defer(() => proc.kill("SIGKILL"));
    await waitFor(async () => (await loggedPids(pidLog("hung"))).length >= 2);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(143);
    expect((await allPids()).filter((pid) => !isGone(pid))).toEqual([]);
  }, 60_000);

  test("one-shot: a call to a server still starting answers 'starting' within one discovery attempt", async () => {
    const { h, env, llm } = await setup();
    // A short attempt keeps the test quick; the sentence is the same with the default 10 s.
    await writeFile(
      join(h.home, "config.toml"),
      (await Bun.file(join(h.home, "config.toml")).text()).replace(
        "[fermix_core.plugins]\n",
        "[fermix_core.plugins]\ndiscovery_timeout_seconds = 1\n",
      ),
    );
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "hung_echo", arguments: { message: "hi" } }] });
    llm.setDefault((req) => ({ kind: "text", text: toolOutputs(req).join("") }));
    const r = await runFermix(["ask", "use hung"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/hung is starting \(discovery attempt \d\/5\); try hung_echo again in a moment\./);
  }, 60_000);

  test("a SIGKILLed daemon's servers are reaped by the next daemon, and only those", async () => {
    const { env, pidLog, allPids } = await setup({ hungMode: "normal" });
    const first = await startFermixDaemon(env);
    defer(() => first.stop());
    await waitFor(async () => (await loggedPids(pidLog("hung"))).length >= 2);
    const orphans = await loggedPids(pidLog("hung"));
    process.kill(first.pid, "SIGKILL");
    await first.stop();
    // Without the reaper these would live on under init: the scenario is real.
    expect(orphans.filter((pid) => isGone(pid))).toEqual([]);
    // A bystander with its own process group: never touched.
    const bystander = Bun.spawn(["sleep", "60"], { stdout: "ignore", stderr: "ignore" });
    defer(() => bystander.kill("SIGKILL"));

    const second = await startFermixDaemon(env);
    defer(() => second.stop());
    expect(orphans.filter((pid) => !isGone(pid))).toEqual([]);
    expect(isGone(bystander.pid)).toBe(false);
    expect(await second.stop()).toBe(0);
    expect((await allPids()).filter((pid) => !isGone(pid))).toEqual([]);
  }, 60_000);
});

/** Waits for a condition on files a server writes (its readiness signal); a generous safety deadline. */
async function waitFor(check: () => Promise<boolean>, deadlineMs = 30_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not reached within ${deadlineMs} ms`);
    await Bun.sleep(20);
  }
}

/** The processes among `pids` that still run, each with its command line and state, for a readable failure. */
function leftovers(pids: number[]): string[] {
  return pids
    .filter((pid) => !isGone(pid))
    .map((pid) => {
      const read = (file: string) => {
        try {
          return readFileSync(`/proc/${pid}/${file}`, "utf8");
        } catch {
          return "?";
        }
      };
      const stat = read("stat");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return `${pid} state=${fields[0]} ppid=${fields[1]} pgrp=${fields[2]}: ${read("cmdline").replaceAll("\0", " ").trim()}`;
    });
}
