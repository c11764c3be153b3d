import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  createMcpSupervisor,
  DISCOVERY_BACKOFF_MAX_MS,
  type McpSupervisorDeps,
} from "../../../src/plugins/mcp-rail/supervisor.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { isGone, loggedPids, tempDir, writeMcpPlugin } from "./_fixture.ts";

const defer = cleanupAfterEach();
/** For servers that never answer: each attempt waits out this deadline, so keep it short. */
const quick = { discoveryTimeoutMs: 400 };

async function setup(deps: McpSupervisorDeps = {}) {
  const root = await tempDir("fermix-mcp-sup-");
  defer(root.remove);
  const sleeps: number[] = [];
  const supervisor = createMcpSupervisor({
    discoveryTimeoutMs: 5_000,
    now: () => 1_000,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    // No jitter: the backoff's waits are read at their ceilings.
    random: () => 0,
    ...deps,
  });
  defer(() => supervisor.stopAll());
  const plugin = await writeMcpPlugin(root.path, "fake");
  const pidLog = join(root.path, "pids.log");
  const start = async (config: Record<string, string | boolean>) => {
    const handle = await supervisor.start({
      name: "fake",
      ...plugin,
      configValues: { PID_LOG: pidLog, ...config },
      env: process.env,
    });
    await handle.ready();
    return handle;
  };
  return { supervisor, sleeps, pidLog, start };
}

describe("discovery retries", () => {
  test("a server that never answers is quarantined after exactly 5 attempts, its process trees gone", async () => {
    const { sleeps, pidLog, start } = await setup(quick);
    const handle = await start({ MODE: "silent", HELPER: true });

    expect(handle.status).toBe("quarantined");
    expect(handle.attempts).toBe(5);
    expect(sleeps).toEqual([500, 1000, 2000, 4000]);
    expect(handle.tools()).toEqual([]);
    expect(handle.reason).toContain("5 discovery attempts failed");
    expect(handle.reason).toContain("no answer to discovery within 400 ms");
    // Each attempt starts the server and its helper; on a busy machine an attempt can end (400 ms) before they log
    // their pids, so the count is at most 10, never a timing to assert. Whatever started is gone.
    const pids = await loggedPids(pidLog);
    expect(pids.length).toBeGreaterThan(0);
    expect(pids.length).toBeLessThanOrEqual(10);
    expect(pids.filter((pid) => !isGone(pid))).toEqual([]);
    const call = await handle.call("fake_echo", { message: "hi" });
    expect(call.isError).toBe(true);
    expect(call.content).toContain("quarantined");
  });

  test("a good start takes one attempt and no backoff", async () => {
    const { sleeps, start } = await setup();
    const handle = await start({ MODE: "normal" });
    expect(handle.status).toBe("ready");
    expect(handle.attempts).toBe(1);
    expect(sleeps).toEqual([]);
    expect(handle.tools().map((t) => t.name)).toEqual(["fake_env", "fake_cwd", "fake_echo", "fake_crash"]);
    expect(await handle.call("fake_echo", { message: "hi" })).toEqual({ content: "echo: hi" });
    expect((await handle.call("fake_nope", {})).isError).toBe(true);
  });

  test("start on a quarantined plugin starts it fresh", async () => {
    const { supervisor, sleeps, start } = await setup(quick);
    const first = await start({ MODE: "silent" });
    expect(first.status).toBe("quarantined");

    const second = await start({ MODE: "normal" });
    expect(second.status).toBe("ready");
    // Fresh: a new handle with its own count (one attempt, unless a busy machine made the first miss 400 ms).
    expect(second).not.toBe(first);
    expect(second.attempts).toBeLessThan(5);
    expect(first.status).toBe("stopped");
    expect(supervisor.get("fake")).toBe(second);
    expect(sleeps.slice(0, 4)).toEqual([500, 1000, 2000, 4000]);
  });
});

describe("after a good start", () => {
  test("a server that exits is reconnected, and the old process is gone", async () => {
    const { pidLog, start } = await setup();
    const handle = await start({ MODE: "normal", HELPER: true });
    const [oldPid, oldHelper] = await loggedPids(pidLog);

    const crashed = await handle.call("fake_crash", {});
    expect(crashed.isError).toBe(true);
    expect(await handle.ready()).toBe("ready");

    expect(await handle.call("fake_echo", { message: "again" })).toEqual({ content: "echo: again" });
    const pids = await loggedPids(pidLog);
    expect(pids).toHaveLength(4);
    expect(isGone(oldPid!)).toBe(true);
    expect(isGone(oldHelper!)).toBe(true);
    expect(isGone(pids[2]!)).toBe(false);
  });

  test("reconnects are bounded: a server that keeps exiting is quarantined", async () => {
    const { start } = await setup({ maxReconnects: 1 });
    const handle = await start({ MODE: "normal" });
    await handle.call("fake_crash", {});
    expect(await handle.ready()).toBe("ready");
    await handle.call("fake_crash", {});
    expect(await handle.ready()).toBe("quarantined");
    expect(handle.reason).toContain("not restarting");
  });

  test("reconnects wait by the shared backoff rule, growing to its cap, until the bound quarantines", async () => {
    const { sleeps, start } = await setup({ maxReconnects: 8 });
    const handle = await start({ MODE: "normal" });
    for (let n = 1; n <= 8; n++) {
      await handle.call("fake_crash", {});
      expect(await handle.ready()).toBe("ready");
    }
    expect(sleeps).toEqual([500, 1000, 2000, 4000, 8000, 16_000, DISCOVERY_BACKOFF_MAX_MS, DISCOVERY_BACKOFF_MAX_MS]);
    await handle.call("fake_crash", {});
    expect(await handle.ready()).toBe("quarantined");
    expect(handle.reason).toContain("exited 9 times in a row");
    expect(sleeps).toHaveLength(8);
  }, 30_000);

  test("a session that stayed up starts the reconnect waits afresh; the waits carry jitter", async () => {
    const clock = { t: 1_000 };
    const { sleeps, start } = await setup({ now: () => clock.t, random: () => 1 });
    const handle = await start({ MODE: "normal" });
    for (let n = 1; n <= 3; n++) {
      await handle.call("fake_crash", {});
      expect(await handle.ready()).toBe("ready");
    }
    clock.t += 60_000;
    await handle.call("fake_crash", {});
    expect(await handle.ready()).toBe("ready");
    // 20 % jitter at its most: each wait is 80 % of its ceiling.
    expect(sleeps).toEqual([400, 800, 1600, 400]);
  }, 30_000);

  test("stop tears down the process tree and later calls are refused", async () => {
    const { pidLog, start } = await setup();
    const handle = await start({ MODE: "normal", HELPER: true });
    await handle.stop();
    expect(handle.status).toBe("stopped");
    expect((await loggedPids(pidLog)).filter((pid) => !isGone(pid))).toEqual([]);
    expect((await handle.call("fake_echo", { message: "x" })).isError).toBe(true);
  });
});
