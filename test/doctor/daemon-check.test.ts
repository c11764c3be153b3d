import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { daemonCheck } from "../../src/doctor/daemon-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { createDaemonClient } from "../../src/protocol/client.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  return h;
}

/** A daemon socket speaking the real /v1/status shape, with the version the test names. */
function fakeDaemon(
  h: TempHome,
  version: string,
  opts: {
    hang?: boolean;
    subsystems?: Array<{ name: string; state: string; detail?: string }>;
    daemonErrors?: number;
  } = {},
) {
  const server = Bun.serve({
    unix: `${h.home}/daemon.sock`,
    async fetch(req) {
      if (opts.hang) await new Promise(() => {});
      if (new URL(req.url).pathname !== "/v1/status") return new Response("not found", { status: 404 });
      return Response.json({
        pid: 4242,
        version,
        started_at: new Date().toISOString(),
        uptime_ms: 5000,
        home: h.home,
        protocol: 1,
        primary_provider: "openai",
        fallback_providers: [],
        active_turns: 0,
        ...(opts.subsystems ? { subsystems: opts.subsystems } : {}),
        ...(opts.daemonErrors !== undefined ? { daemon_errors: opts.daemonErrors } : {}),
      });
    },
  });
  defer(() => server.stop(true));
}

const viaSocket = (h: TempHome) => ({ daemonStatus: () => createDaemonClient(`${h.home}/daemon.sock`).status() });

describe("doctor: daemon socket", () => {
  test("no socket: not running, start it", async () => {
    const h = home();
    const { rows, ok } = await runDoctor(doctorDeps(h), [daemonCheck]);
    expect(ok).toBe(true);
    expect(rows).toEqual([
      {
        id: "daemon",
        title: "daemon",
        status: "warn",
        detail: "not running (no socket at ~/h/daemon.sock)",
        fix: "fermix start",
      },
    ]);
  });

  test("a stale socket file nobody answers on is not running either", async () => {
    const h = home();
    writeFileSync(`${h.home}/daemon.sock`, "");
    const { rows } = await runDoctor(doctorDeps(h, viaSocket(h)), [daemonCheck]);
    expect(rows[0]).toMatchObject({
      status: "warn",
      detail: "not running (nothing answers on ~/h/daemon.sock)",
      fix: "fermix start",
    });
  });

  test("the same version is ok", async () => {
    const h = home();
    const deps = doctorDeps(h, viaSocket(h));
    fakeDaemon(h, deps.version);
    const { rows } = await runDoctor(deps, [daemonCheck]);
    expect(rows[0]).toEqual({
      id: "daemon",
      title: "daemon",
      status: "ok",
      detail: `running (pid 4242, version ${deps.version})`,
    });
  });

  test("a part of the daemon that did not start is named with its reason; a degraded one has its own row", async () => {
    const h = home();
    const deps = doctorDeps(h, viaSocket(h));
    fakeDaemon(h, deps.version, {
      subsystems: [
        { name: "jobs", state: "failed", detail: "memory.db is locked" },
        { name: "web", state: "degraded", detail: "port 4030 is in use" },
        { name: "plugins", state: "off" },
      ],
    });
    const { rows } = await runDoctor(deps, [daemonCheck]);
    expect(rows[0]).toEqual({
      id: "daemon",
      title: "daemon",
      status: "warn",
      detail: `running (pid 4242, version ${deps.version}), but these parts did not start: jobs (memory.db is locked)`,
      fix: "fix what it says, then fermix restart",
    });
  });

  test("errors nothing handled warn with their count; none is ok", async () => {
    const h = home();
    const deps = doctorDeps(h, viaSocket(h));
    fakeDaemon(h, deps.version, { daemonErrors: 3 });
    const { rows } = await runDoctor(deps, [daemonCheck]);
    expect(rows[0]).toEqual({
      id: "daemon",
      title: "daemon",
      status: "warn",
      detail: `running (pid 4242, version ${deps.version}), but 3 unexpected errors since it started (each logged, and traced as daemon_error)`,
      fix: "fermix logs --level error (fermix restart if they keep coming)",
    });
    const quiet = home();
    const quietDeps = doctorDeps(quiet, viaSocket(quiet));
    fakeDaemon(quiet, quietDeps.version, { daemonErrors: 0 });
    expect((await runDoctor(quietDeps, [daemonCheck])).rows[0]!.status).toBe("ok");
  });

  test("another version warns and names fermix restart", async () => {
    const h = home();
    fakeDaemon(h, "0.0.9");
    const { rows } = await runDoctor(doctorDeps(h, { ...viaSocket(h), version: "0.1.0" }), [daemonCheck]);
    expect(rows[0]).toEqual({
      id: "daemon",
      title: "daemon",
      status: "warn",
      detail: "running (pid 4242, version 0.0.9), but this binary is 0.1.0: the daemon still runs the old code",
      fix: "fermix restart",
    });
  });

  test("a daemon that never answers fails after the probe timeout", async () => {
    const h = home();
    fakeDaemon(h, "0.1.0", { hang: true });
    const { rows } = await runDoctor(doctorDeps(h, { ...viaSocket(h), probeTimeoutMs: 100 }), [daemonCheck]);
    expect(rows[0]).toMatchObject({
      status: "fail",
      detail: "no answer on ~/h/daemon.sock within 0.1 s",
      fix: "fermix restart",
    });
  });
});
