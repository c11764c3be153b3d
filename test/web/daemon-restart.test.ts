import { describe, expect, test } from "bun:test";
import type { ServiceManager } from "../../src/service/manager-contract.ts";
import { createDaemonRestart } from "../../src/web/daemon-restart.ts";

const log = { info: () => {}, error: () => {} };

describe("Apply & restart's hand-over", () => {
  test("without a service: a detached `fermix restart` with the daemon's env and home", async () => {
    const spawned: Array<{ argv: string[]; env: Record<string, string>; home: string }> = [];
    const control = createDaemonRestart({
      env: { FERMIX_HOME: "/tmp/fx-home", HOME: "/tmp/fx", UNSET: undefined },
      log,
      service: () => undefined,
      spawnHelper: (argv, env, home) => spawned.push({ argv, env, home }),
    });
    expect(control.pid).toBe(process.pid);
    await control.restart();
    expect(spawned).toHaveLength(1);
    expect(spawned[0]!.argv.at(-1)).toBe("restart");
    expect(spawned[0]!.env).toEqual({ FERMIX_HOME: "/tmp/fx-home", HOME: "/tmp/fx" });
    expect(spawned[0]!.home).toBe("/tmp/fx-home");
  });

  test("under systemd: the manager's restart, which outlives the unit's cgroup; no helper", async () => {
    let restarts = 0;
    const manager = {
      target: { kind: "systemd", path: "/x.service" },
      restart: async () => void restarts++,
    } as unknown as ServiceManager;
    const control = createDaemonRestart({
      env: { FERMIX_HOME: "/tmp/fx-home" },
      log,
      service: () => manager,
      spawnHelper: () => {
        throw new Error("no helper under systemd");
      },
    });
    await control.restart();
    expect(restarts).toBe(1);
  });
});
