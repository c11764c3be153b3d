import { describe, expect, test } from "bun:test";
import { bindSubsystem, defineSubsystem, startSubsystems, stopSubsystems } from "../src/subsystem.ts";

type Deps = { wanted: boolean; journal: string[] };

/** A part that writes what happens to it into the journal; `fail` makes that step throw. */
function part(
  name: string,
  opts: { awaitStart?: boolean; fail?: "load" | "start" | "stop"; gate?: Promise<void> } = {},
) {
  return defineSubsystem({
    name,
    wanted: (deps: Deps) => deps.wanted,
    load: async (deps: Deps) => {
      deps.journal.push(`load ${name}`);
      if (opts.fail === "load") throw new Error(`${name} has no code`);
      return { name, deps };
    },
    start: async (api) => {
      api.deps.journal.push(`start ${name}`);
      await opts.gate;
      if (opts.fail === "start") throw new Error(`${name} port in use`);
      api.deps.journal.push(`started ${name}`);
    },
    awaitStart: opts.awaitStart,
    stop: async (api) => {
      api.deps.journal.push(`stop ${name}`);
      if (opts.fail === "stop") throw new Error(`${name} would not stop`);
    },
    turn: async (api, turn: { operator: boolean }) => (turn.operator ? `${api.name} adds a tool` : undefined),
    turnError: (err, deps) => deps.journal.push(`turn error: ${err.message}`),
  });
}

describe("a bound subsystem", () => {
  test("loads once, however many ask at once, and says so in its status", async () => {
    const deps: Deps = { wanted: true, journal: [] };
    const jobs = bindSubsystem(part("jobs"), deps);
    expect(jobs.status()).toEqual({ name: "jobs", state: "idle" });
    expect(jobs.loaded()).toBe(false);
    const [a, b] = await Promise.all([jobs.api(), jobs.api()]);
    expect(a).toBe(b);
    expect(deps.journal).toEqual(["load jobs"]);
    expect(jobs.current()).toBe(a);
    expect(jobs.status()).toEqual({ name: "jobs", state: "running" });
  });

  test("a part config.toml does not want is off, never started, and never stopped", async () => {
    const deps: Deps = { wanted: false, journal: [] };
    const web = bindSubsystem(part("web"), deps);
    expect(web.status()).toEqual({ name: "web", state: "off" });
    await web.start();
    await web.stop();
    expect(deps.journal).toEqual([]);
  });

  test("a failed start is the part's state with the reason, and the failure is the part's to say", async () => {
    const said: string[] = [];
    const deps: Deps = { wanted: true, journal: [] };
    const web = bindSubsystem(
      { ...part("web", { fail: "start" }), startFailed: (err) => said.push(err.message) },
      deps,
    );
    await web.start();
    expect(said).toEqual(["web port in use"]);
    expect(web.status()).toEqual({ name: "web", state: "failed", detail: "web port in use" });
  });

  test("a part whose code is small hands itself out synchronously", () => {
    const browser = bindSubsystem(
      defineSubsystem({ name: "browser", wanted: () => true, load: () => ({ tabs: 0 }) }),
      {},
    );
    expect(browser.sync()).toEqual({ tabs: 0 });
    expect(browser.sync()).toBe(browser.sync());
    const jobs = bindSubsystem(part("jobs"), { wanted: true, journal: [] });
    expect(() => jobs.sync()).toThrow("does not load synchronously");
  });

  test("a fault makes a running part degraded, adding to what it says itself; a failed part stays failed", async () => {
    const deps: Deps = { wanted: true, journal: [] };
    const channels = bindSubsystem(
      defineSubsystem({
        name: "channels",
        wanted: () => true,
        load: () => ({}),
        status: () => ({ state: "degraded" as const, detail: "discord: token refused" }),
      }),
      deps,
    );
    const jobs = bindSubsystem(part("jobs"), deps);
    await jobs.api();
    jobs.fault("TypeError: x is null");
    jobs.fault("Error: the clock fell over");
    expect(jobs.status()).toEqual({
      name: "jobs",
      state: "degraded",
      detail: "2 unexpected errors since the daemon started, the last: Error: the clock fell over",
    });
    await channels.api();
    channels.fault("Error: once");
    expect(channels.status()).toEqual({
      name: "channels",
      state: "degraded",
      detail: "discord: token refused; 1 unexpected error since the daemon started, the last: Error: once",
    });
    const web = bindSubsystem(part("web", { fail: "start" }), deps);
    await web.start().catch(() => {});
    web.fault("Error: later");
    expect(web.status()).toEqual({ name: "web", state: "failed", detail: "web port in use" });
  });

  test("a turn asks a part only when it is loaded or wanted; a failure to load is reported and the turn goes on", async () => {
    const deps: Deps = { wanted: false, journal: [] };
    expect(await bindSubsystem(part("plugins"), deps).turn({ operator: true })).toBeUndefined();
    expect(deps.journal).toEqual([]);
    deps.wanted = true;
    expect(await bindSubsystem(part("plugins"), deps).turn({ operator: true })).toBe("plugins adds a tool");
    expect(await bindSubsystem(part("mcp", { fail: "load" }), deps).turn({ operator: true })).toBeUndefined();
    expect(deps.journal).toContain("turn error: mcp has no code");
  });
});

describe("the daemon's parts together", () => {
  test("start in list order, awaiting only the parts that ask; stop in reverse, only what was loaded", async () => {
    const deps: Deps = { wanted: true, journal: [] };
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const plugins = bindSubsystem(part("plugins", { gate }), deps);
    const jobs = bindSubsystem(part("jobs", { awaitStart: true }), deps);
    const idle = bindSubsystem(defineSubsystem({ name: "browser", wanted: () => true, load: () => ({}) }), deps);
    const parts = [plugins, jobs, idle];
    // plugins waits on its gate in the background; the boot goes on to jobs and waits for it.
    await startSubsystems(parts, () => {});
    // Loads begin in list order at once (plugins' is not waited for); plugins never got past its gate.
    expect(deps.journal).toEqual(["load plugins", "load jobs", "start plugins", "start jobs", "started jobs"]);
    expect(plugins.status().state).toBe("running");
    expect(idle.loaded()).toBe(false);
    open();
    await plugins.api();
    deps.journal.length = 0;
    await stopSubsystems(parts, () => {});
    expect(deps.journal).toEqual(["stop jobs", "stop plugins"]);
  });

  test("one part that will not stop does not keep the next from stopping", async () => {
    const deps: Deps = { wanted: true, journal: [] };
    const parts = [bindSubsystem(part("a"), deps), bindSubsystem(part("b", { fail: "stop" }), deps)];
    await Promise.all(parts.map((p) => p.api()));
    const failed: string[] = [];
    await stopSubsystems(parts, (p, err) => failed.push(`${p.name}: ${err.message}`));
    expect(deps.journal.slice(-2)).toEqual(["stop b", "stop a"]);
    expect(failed).toEqual(["b: b would not stop"]);
  });
});
