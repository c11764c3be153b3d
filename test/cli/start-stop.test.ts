import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitForDaemon } from "../../src/service/daemon-control.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand, runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { fakeManager, killDaemonOf } from "../service/service-fixture.ts";

const defer = cleanupAfterEach();
const ROOT = join(import.meta.dir, "..", "..");

function setup(extraEnv: Record<string, string> = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => killDaemonOf(h.home)); // runs first: no daemon outlives its test
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, ...extraEnv };
  return { h, env, fermix: (...args: string[]) => runFermix(args, { env }) };
}

const STARTED = /^fermix: started \(pid (\d+), version ([\w.-]+)\)\n$/;

describe("fermix start | stop | restart (compiled binary, real daemon)", () => {
  test("start runs the daemon in the background; start again, restart, stop, stop again", async () => {
    const { h, fermix } = setup();
    const start = await fermix("start");
    expect(start.stderr).toBe("");
    expect(start.code).toBe(0);
    const [, pid, version] = STARTED.exec(start.stdout)!;
    // the CLI has exited; the daemon answers on
    const status = await fermix("status");
    expect(status.stdout).toStartWith(`fermix: running (pid ${pid}, version ${version},`);

    expect(await fermix("start")).toEqual({
      code: 0,
      stdout: `fermix: already running (pid ${pid}, version ${version})\n`,
      stderr: "",
    });

    const restart = await fermix("restart");
    expect(restart.code).toBe(0);
    const [, newPid] = /^fermix: restarted \(pid (\d+), version ([\w.-]+)\)\n$/.exec(restart.stdout)!;
    expect(newPid).not.toBe(pid);

    expect(await fermix("stop")).toEqual({ code: 0, stdout: `fermix: stopped (pid ${newPid})\n`, stderr: "" });
    expect(existsSync(join(h.home, "daemon.sock"))).toBe(false);
    expect(await fermix("stop")).toEqual({ code: 3, stdout: "", stderr: "fermix: not running\n" });
    // A detached daemon's stderr file gets its readiness lines only; the log lines go to fermix.log, which rotates.
    const output = readFileSync(join(h.home, "logs", "daemon-output.log"), "utf8")
      .trim()
      .split("\n");
    expect(output.every((l) => /^fermix: listening on .* \(pid \d+\)$/.test(l))).toBe(true);
    expect(readFileSync(join(h.home, "logs", "fermix.log"), "utf8")).toContain("[daemon] listening on");
  });

  test("restart with nothing running starts it", async () => {
    const { fermix } = setup();
    const restart = await fermix("restart");
    expect(restart.code).toBe(0);
    expect(restart.stdout).toMatch(/^fermix: was not running; started \(pid \d+, version [\w.-]+\)\n$/);
    expect((await fermix("stop")).code).toBe(0);
  });

  test("restart with a config.toml the new daemon would refuse: refused with its sentence, the daemon keeps running", async () => {
    const { h, fermix } = setup();
    const start = await fermix("start");
    const [, pid] = STARTED.exec(start.stdout)!;
    const file = join(h.home, "config.toml");
    // Valid TOML and schema, refused only by the routing check the daemon makes at start.
    h.writeConfig('[fermix_core.routing]\ncron_provider = "gemini"\n');
    expect(await fermix("restart")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `fermix: ${file}: [fermix_core.routing] cron_provider: unknown provider "gemini"\n` +
        "fermix: nothing was stopped; fix config.toml, then run fermix restart again\n",
    });
    h.writeConfig("[fermix_core\n");
    const broken = await fermix("restart");
    expect(broken.code).toBe(1);
    expect(broken.stderr).toStartWith(`fermix: ${file}: line 1, column`);
    // The same daemon answers.
    const status = await fermix("status");
    expect(status.code).toBe(0);
    expect(status.stdout).toStartWith(`fermix: running (pid ${pid},`);
    // Fixed, the restart goes through.
    h.writeConfig("");
    expect((await fermix("restart")).stdout).toMatch(/^fermix: restarted \(pid \d+, version [\w.-]+\)\n$/);
  });

  test("a daemon that cannot start: start says why and shows its last words, exit 1", async () => {
    const { h, fermix } = setup();
    h.writeConfig("[fermix_core\n");
    const start = await fermix("start");
    expect(start.code).toBe(1);
    expect(start.stdout).toBe("");
    expect(start.stderr).toStartWith(
      `fermix: the daemon exited with code 1; see ${join(h.home, "logs", "daemon-output.log")} and ${join(h.home, "logs", "fermix.log")}\n`,
    );
    expect(start.stderr).toContain("config.toml");
  });

  test("with a user unit installed for this home, start and stop go through systemctl", async () => {
    const binary = await fermixBinary();
    const fake = fakeManager({ daemon: binary });
    defer(() => fake.remove());
    const { h, fermix } = setup({ PATH: fake.path, ...fake.env });
    expect((await fermix("service", "install")).code).toBe(0);
    // like systemd's Type=simple, enable --now returns before the daemon listens
    expect((await waitForDaemon({ socket: join(h.home, "daemon.sock"), timeoutMs: 10_000 })).ok).toBe(true);
    expect((await fermix("stop")).stdout).toMatch(/^fermix: stopped \(pid \d+\)\n$/);

    const start = await fermix("start");
    expect(start.stdout).toMatch(STARTED);
    const stop = await fermix("stop");
    expect(stop.code).toBe(0);
    expect(fake.calls()).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable --now fermix.service",
      "systemctl --user stop fermix.service",
      "systemctl --user start fermix.service",
      "systemctl --user stop fermix.service",
    ]);
  });

  test("from source, start runs `bun src/main.ts run` in the background", async () => {
    const { h, env } = setup();
    const { code, stdout, stderr } = await runCommand([process.execPath, join(ROOT, "src/main.ts"), "start"], {
      env: { ...env, PATH: "/usr/bin:/bin" },
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^fermix: started \(pid \d+, version 0\.1\.0-dev\)\n$/);
    expect((await runFermix(["stop"], { env })).code).toBe(0);
    expect(existsSync(join(h.home, "daemon.sock"))).toBe(false);
  });

  test("--help", async () => {
    const { fermix } = setup();
    expect((await fermix("start", "--help")).stdout).toMatchInlineSnapshot(`
      "Usage: fermix start

      Start the daemon (through the service when one is installed).
      Without a service it starts in the background. Either way it waits until the daemon answers.

      Options:
        -h, --help               show this help
      "
    `);
    expect((await fermix("restart", "--help")).stdout).toMatchInlineSnapshot(`
      "Usage: fermix restart

      Stop, then start the daemon (after an upgrade or a config change).
      A daemon that is not running is just started. It waits until the daemon answers. A config.toml the new daemon would refuse is refused first, and the running daemon keeps running.

      Options:
        -h, --help               show this help
      "
    `);
    expect((await fermix("stop", "--help")).stdout).toMatchInlineSnapshot(`
      "Usage: fermix stop

      Stop the running daemon.
      Through the service when one is installed; it waits until the daemon has gone.

      Options:
        -h, --help               show this help
      "
    `);
    expect(await fermix("start", "now")).toMatchObject({
      code: 2,
      stderr: 'fermix: start: unexpected argument "now"\nRun `fermix start --help` for usage.\n',
    });
  });
});
