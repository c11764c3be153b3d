import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  createMcpSupervisor,
  type McpPlugin,
  type McpServerHandle,
  type McpSupervisorDeps,
} from "../../../src/plugins/mcp-rail/supervisor.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { isGone, loggedPids, tempDir, writeCrashingPlugin, writeMcpPlugin } from "./_fixture.ts";

/**
 * A server starts in the background: `supervisor.start` hands back its handle while discovery runs, and
 * whoever needs the server waits on the handle (ready, waitReady, a call's waitMs) or hears of it (onChange).
 */
const defer = cleanupAfterEach();

async function setup(deps: McpSupervisorDeps = {}) {
  const root = await tempDir("fermix-mcp-bg-");
  defer(root.remove);
  const pidLog = join(root.path, "pids.log");
  // Whatever a failing test leaves, no server or helper outlives it.
  defer(async () => {
    for (const pid of await loggedPids(pidLog)) if (!isGone(pid)) process.kill(pid, "SIGKILL");
  });
  const sleeps: number[] = [];
  const changes = changeLog();
  const discovered: Array<{ plugin: string; tools: string[] }> = [];
  const supervisor = createMcpSupervisor({
    discoveryTimeoutMs: 10_000,
    now: () => 1_000,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    // No jitter: the backoff's waits are read at their ceilings.
    random: () => 0,
    onChange: changes.onChange,
    onDiscovered: (plugin, tools) => discovered.push({ plugin: plugin.name, tools: tools.map((t) => t.name) }),
    ...deps,
  });
  defer(() => supervisor.stopAll());
  const fake = { name: "fake", ...(await writeMcpPlugin(root.path, "fake")) };
  /** Starts `plugin` (the fake server unless told otherwise) with these config values, logging its pids. */
  const start = (config: Record<string, string | boolean>, plugin: Omit<McpPlugin, "configValues" | "env"> = fake) =>
    supervisor.start({ ...plugin, configValues: { PID_LOG: pidLog, ...config }, env: process.env });
  return { root: root.path, supervisor, sleeps, changes, discovered, pidLog, start };
}

/** Every onChange as "status attempts", and a way to wait for the next change that matches. */
function changeLog() {
  const seen: string[] = [];
  const waiters: Array<{ match: (h: McpServerHandle) => boolean; resolve: () => void }> = [];
  return {
    seen,
    onChange(handle: McpServerHandle) {
      seen.push(`${handle.status} ${handle.attempts}`);
      for (const waiter of [...waiters]) {
        if (!waiter.match(handle)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    /** Register before doing what causes the change: only changes from now on count. */
    next(match: (h: McpServerHandle) => boolean): Promise<void> {
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

/** Waits for a server to have written `count` pids (its readiness signal); a generous safety deadline. */
async function waitForPids(file: string, count: number, deadlineMs = 20_000): Promise<number[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const pids = await loggedPids(file);
    if (pids.length >= count) return pids;
    if (Date.now() > until) throw new Error(`${count} pids not logged within ${deadlineMs} ms`);
    await Bun.sleep(20);
  }
}

/** `work`'s outcome, or "still waiting" past a safety deadline far beyond what it should take. */
async function within<T>(ms: number, work: Promise<T>): Promise<T | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"still waiting">((resolve) => {
    timer = setTimeout(() => resolve("still waiting"), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe("start hands back the handle while discovery runs", () => {
  test("a silent server's handle comes back starting, with the attempt budget, before any attempt has failed", async () => {
    const { sleeps, start } = await setup({ discoveryTimeoutMs: 2_000 });
    const handle = await start({ MODE: "silent" });

    expect(handle.status).toBe("starting");
    expect(handle.attempts).toBeGreaterThanOrEqual(0);
    expect(handle.attempts).toBeLessThanOrEqual(1);
    expect(handle.maxAttempts).toBe(5);
    expect(handle.tools()).toEqual([]);
    expect(sleeps).toEqual([]);
  });

  test("waitReady gives up after its time and says a silent server is still starting", async () => {
    const { start } = await setup({ discoveryTimeoutMs: 5_000 });
    const handle = await start({ MODE: "silent" });
    expect(await handle.waitReady(200)).toBe("starting");
    expect(handle.status).toBe("starting");
  });

  test("waitReady returns ready once a normal server has been discovered", async () => {
    const { start } = await setup();
    const handle = await start({ MODE: "normal" });
    expect(await handle.waitReady(20_000)).toBe("ready");
    expect(handle.tools().map((t) => t.name)).toEqual(["fake_env", "fake_cwd", "fake_echo", "fake_crash"]);
  });
});

describe("a call while the server is not ready answers in a sentence", () => {
  test("a silent server still starting: the attempt, and to try again, at once or after waitMs", async () => {
    const { changes, start } = await setup({ discoveryTimeoutMs: 5_000 });
    const firstAttempt = changes.next((h) => h.attempts === 1);
    const handle = await start({ MODE: "silent" });
    await firstAttempt;

    const sentence = "fake is starting (discovery attempt 1/5); try fake_echo again in a moment.";
    expect(await handle.call("fake_echo", { message: "hi" })).toEqual({ content: sentence, isError: true });
    expect(await handle.call("fake_echo", { message: "hi" }, undefined, { waitMs: 100 })).toEqual({
      content: sentence,
      isError: true,
    });
  });

  test("a normal server mid-start: a call with waitMs waits for it and returns the answer", async () => {
    const { start } = await setup();
    const handle = await start({ MODE: "normal" });
    expect(handle.status).toBe("starting");

    expect(await handle.call("fake_echo", { message: "hi" }, undefined, { waitMs: 20_000 })).toEqual({
      content: "echo: hi",
    });
    expect(handle.status).toBe("ready");
  });

  test("a quarantined server: says so, and names the doctor command", async () => {
    const { start } = await setup({ discoveryTimeoutMs: 400, maxAttempts: 2 });
    const handle = await start({ MODE: "silent" });
    expect(await handle.ready()).toBe("quarantined");

    const result = await handle.call("fake_echo", { message: "hi" }, undefined, { waitMs: 1_000 });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("fake is quarantined");
    expect(result.content).toContain("fermix plugins doctor fake");
  });
});

describe("a quarantine says why", () => {
  test("a server that exits at once: its exit code and its last stderr line", async () => {
    const { root, sleeps, start } = await setup({ maxAttempts: 2 });
    const handle = await start({}, { name: "crash", ...(await writeCrashingPlugin(root)) });

    expect(await handle.ready()).toBe("quarantined");
    expect(handle.attempts).toBe(2);
    expect(sleeps).toEqual([500]);
    expect(handle.reason).toContain("2 discovery attempts failed");
    expect(handle.reason).toContain("exited with code 7");
    expect(handle.reason).toContain("Error: Cannot find module 'left-pad'");
  });

  test("a silent server: the discovery deadline it missed", async () => {
    const { start } = await setup({ discoveryTimeoutMs: 400, maxAttempts: 2 });
    const handle = await start({ MODE: "silent" });

    expect(await handle.ready()).toBe("quarantined");
    expect(handle.reason).toContain("no answer to discovery within 400 ms");
  });
});

describe("listeners hear of every change", () => {
  test("onChange: starting, then ready, then stopped; onDiscovered: the tool list, once", async () => {
    const { changes, discovered, start } = await setup();
    const handle = await start({ MODE: "normal" });
    expect(await handle.ready()).toBe("ready");
    await handle.stop();

    expect(changes.seen).toEqual(["starting 1", "ready 1", "stopped 1"]);
    expect(discovered).toEqual([{ plugin: "fake", tools: ["fake_env", "fake_cwd", "fake_echo", "fake_crash"] }]);
  });

  test("onChange: each attempt while starting, then quarantined; onDiscovered: never", async () => {
    const { changes, discovered, start } = await setup({ discoveryTimeoutMs: 400, maxAttempts: 2 });
    const handle = await start({ MODE: "silent" });
    expect(await handle.ready()).toBe("quarantined");

    expect(changes.seen).toEqual(["starting 1", "starting 2", "quarantined 2"]);
    expect(discovered).toEqual([]);
  });
});

describe("stop mid-discovery", () => {
  test("kills the in-flight server and its helper at once, and the handle stays stopped", async () => {
    // A deadline far past the safety net below: a stop that waited for the attempt to end would fail it.
    const { changes, sleeps, pidLog, start } = await setup({ discoveryTimeoutMs: 60_000 });
    const handle = await start({ MODE: "silent", HELPER: true });
    const pids = await waitForPids(pidLog, 2);

    expect(
      await within(
        15_000,
        handle.stop().then(() => "stopped"),
      ),
    ).toBe("stopped");
    expect(pids.filter((pid) => !isGone(pid))).toEqual([]);
    expect(handle.status).toBe("stopped");
    expect(handle.reason).toBeUndefined();
    expect(changes.seen.at(-1)).toBe("stopped 1");
    // No second attempt was made after the stop.
    expect(sleeps).toEqual([]);
    expect(await loggedPids(pidLog)).toEqual(pids);
  });
});

describe("after stopAll (shutdown)", () => {
  test("a start asked for later (a reload racing the shutdown) launches nothing and says why", async () => {
    const { supervisor, pidLog, start } = await setup();
    const running = await start({ MODE: "normal" });
    await running.ready();
    await supervisor.stopAll();
    expect(running.status).toBe("stopped");
    await expect(start({ MODE: "normal" })).rejects.toThrow("plugin servers are shutting down");
    expect(supervisor.get("fake")).toBeUndefined();
    expect((await loggedPids(pidLog)).filter((pid) => !isGone(pid))).toEqual([]);
    expect(await loggedPids(pidLog)).toHaveLength(1);
  });
});

describe("tools/list_changed", () => {
  test("the server's notice replaces the tool list, and onChange and onDiscovered hear of it", async () => {
    const { changes, discovered, start } = await setup();
    const handle = await start({ MODE: "normal", LIST_CHANGED: true });
    expect(await handle.ready()).toBe("ready");
    const before = handle.tools().map((t) => t.name);
    expect(before).not.toContain("fake_late");

    const relisted = changes.next((h) => h.tools().some((t) => t.name === "fake_late"));
    expect(await handle.call("fake_add_tool", { name: "late" })).toEqual({ content: "added late" });
    await relisted;

    expect(handle.tools().map((t) => t.name)).toEqual([...before, "fake_late"]);
    expect(handle.status).toBe("ready");
    expect(discovered.at(-1)).toEqual({ plugin: "fake", tools: [...before, "fake_late"] });
    expect(await handle.call("fake_late", {})).toEqual({ content: "late ran" });
  });
});
