import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  daemonHealth,
  installedService,
  restartDaemon,
  startDaemon,
  stopDaemon,
  waitForDaemon,
} from "../../src/service/daemon-control.ts";
import { ensureServiceUnit } from "../../src/service/drift.ts";
import type { ServiceManager } from "../../src/service/manager-contract.ts";
import { planService } from "../../src/service/target.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { fakeManager, killDaemonOf } from "./service-fixture.ts";

const defer = cleanupAfterEach();

function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => killDaemonOf(h.home));
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, PATH: "/usr/bin:/bin" };
  return { h, env, socket: join(h.home, "daemon.sock") };
}

/** The session a process leads or belongs to (field 6 of /proc/<pid>/stat). */
function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
}

describe("daemon control with a real daemon", () => {
  test("start detached, wait for health, stop through the socket", async () => {
    const { env, socket, h } = setup();
    const binary = await fermixBinary();
    expect(await daemonHealth(socket)).toEqual({ running: false });

    const started = await startDaemon({ binary, env });
    expect(started.via).toBe("process");
    const ready = await waitForDaemon({ socket, timeoutMs: 10_000, exited: started.exited });
    expect(ready).toMatchObject({ ok: true, pid: started.pid });
    if (!ready.ok) throw new Error(ready.reason);
    // its own session, so a terminal's hangup or the CLI's exit does not reach it
    if (process.platform === "linux") expect(sessionOf(ready.pid)).toBe(ready.pid);
    expect(await daemonHealth(socket)).toEqual({ running: true, version: ready.version, pid: ready.pid });
    expect(existsSync(join(h.home, "logs", "daemon-output.log"))).toBe(true);

    expect(await waitForDaemon({ socket, version: "0.0.0-nope", timeoutMs: 150 })).toEqual({
      ok: false,
      reason: `reports ${ready.version}`,
    });
    expect(await waitForDaemon({ socket, version: ready.version, timeoutMs: 150 })).toMatchObject({ ok: true });

    expect(await stopDaemon({ env })).toEqual({ stopped: true, pid: ready.pid });
    expect(existsSync(socket)).toBe(false);
    expect(await started.exited).toBe(0);
    expect(await stopDaemon({ env })).toEqual({ stopped: false });
  });

  test("waitForDaemon: nothing answering, and a started daemon that exits at once", async () => {
    const { env, socket, h } = setup();
    expect(await waitForDaemon({ socket, timeoutMs: 150 })).toEqual({ ok: false, reason: "not answering" });
    h.writeConfig("[fermix_core\n"); // not TOML: `fermix run` refuses to start
    const started = await startDaemon({ binary: await fermixBinary(), env });
    const ready = await waitForDaemon({ socket, timeoutMs: 10_000, exited: started.exited });
    expect(ready).toEqual({ ok: false, reason: "exited with code 1" });
    expect(readFileSync(started.output!.path, "utf8")).toContain("config.toml");
  });

  test("restartDaemon checks the next daemon's config first: refused, the running daemon is not stopped", async () => {
    const { env, socket, h } = setup();
    const binary = await fermixBinary();
    const started = await startDaemon({ binary, env });
    const ready = await waitForDaemon({ socket, timeoutMs: 10_000, exited: started.exited });
    if (!ready.ok) throw new Error(ready.reason);

    h.writeConfig('[fermix_core.routing]\nsubagent_provider = "nope"\n');
    const refused = await restartDaemon({ binary, env }).then(
      () => undefined,
      (e) => e,
    );
    expect(refused).toMatchObject({
      code: "config_invalid",
      message: `${join(h.home, "config.toml")}: [fermix_core.routing] subagent_provider: unknown provider "nope"`,
      data: { section: "fermix_core.routing", key: "subagent_provider" },
    });
    expect(await daemonHealth(socket)).toEqual({ running: true, version: ready.version, pid: ready.pid });

    // Another binary's check (an upgrade's) is the one asked, with this env; it stops the restart the same way.
    const asked: unknown[] = [];
    const other = await restartDaemon({
      binary,
      env,
      checkConfig: async (e) => {
        asked.push(e);
        throw new Error("the other binary refuses");
      },
    }).then(
      () => undefined,
      (e) => e,
    );
    expect(other?.message).toBe("the other binary refuses");
    expect(asked).toEqual([env]);
    expect(await daemonHealth(socket)).toEqual({ running: true, version: ready.version, pid: ready.pid });

    h.writeConfig("");
    const restarted = await restartDaemon({ binary, env });
    expect(restarted.stopped).toEqual({ stopped: true, pid: ready.pid });
    const again = await waitForDaemon({ socket, timeoutMs: 10_000, exited: restarted.started.exited });
    expect(again.ok && again.pid).toBe(restarted.started.pid!);
    expect(await stopDaemon({ env })).toMatchObject({ stopped: true });
  });

  test("with this home's unit installed, start and stop go through the manager", async () => {
    const { env, socket } = setup();
    const binary = await fermixBinary();
    const fake = fakeManager({ daemon: binary });
    defer(() => fake.remove());
    const managerEnv = { ...env, PATH: fake.path, ...fake.env };
    const plan = planService({ scope: "user", env: managerEnv, binary, platform: "linux" });
    await ensureServiceUnit({ plan, env: managerEnv, enable: false });
    const manager = installedService(managerEnv, { platform: "linux" });
    expect(manager?.target).toEqual(plan.target);

    expect(await startDaemon({ binary, env: managerEnv })).toEqual({ via: "service" });
    const ready = await waitForDaemon({ socket, timeoutMs: 10_000 });
    if (!ready.ok) throw new Error(ready.reason);
    expect(await stopDaemon({ env: managerEnv })).toEqual({ stopped: true, pid: ready.pid });
    expect(fake.calls()).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user start fermix.service",
      "systemctl --user stop fermix.service",
    ]);
    // another FERMIX_HOME is not this unit's business
    expect(installedService({ ...managerEnv, FERMIX_HOME: `${env.FERMIX_HOME}-dev` }, { platform: "linux" })).toBe(
      undefined,
    );
  });

  test("a given manager whose unit is not installed is passed over for a detached process", async () => {
    const { env, socket } = setup();
    const calls: string[] = [];
    const manager = {
      target: { kind: "systemd", scope: "user", path: join(env.HOME, "nowhere.service") },
      start: async () => void calls.push("start"),
      stop: async () => void calls.push("stop"),
    } as unknown as ServiceManager;
    const started = await startDaemon({ binary: await fermixBinary(), env, manager });
    expect(started.via).toBe("process");
    expect((await waitForDaemon({ socket, timeoutMs: 10_000 })).ok).toBe(true);
    expect((await stopDaemon({ env, manager })).stopped).toBe(true);
    expect(calls).toEqual([]);
  });
});
