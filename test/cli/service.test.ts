import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand, runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { fakeManager } from "../service/service-fixture.ts";

const defer = cleanupAfterEach();
const ROOT = join(import.meta.dir, "..", "..");

/** The compiled binary with a temp HOME and a fake systemctl first on its PATH. */
function setup() {
  const h = tempHome();
  const fake = fakeManager();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.remove());
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    PATH: fake.path,
    ...fake.env,
    FERMIX_OPIK_ENABLED: "1",
    OPENAI_API_KEY: "sk-test-openai-0123456789abcdef",
  };
  const unit = join(h.userHome, ".config/systemd/user/fermix.service");
  return { h, fake, env, unit, fermix: (...args: string[]) => runFermix(args, { env }) };
}

describe("fermix service (compiled binary, fake systemctl)", () => {
  test("install writes the unit for this binary and enables it; a second install finds it up to date", async () => {
    const { fake, env, unit, fermix } = setup();
    const binary = await fermixBinary();
    const first = await fermix("service", "install");
    expect(first).toEqual({
      code: 0,
      stdout:
        `fermix: installed the systemd user service at ${unit}; it is enabled and started\n` +
        "fermix: a user service stops when you log out; to keep fermix running, run: sudo loginctl enable-linger $USER\n",
      stderr: "",
    });
    const text = readFileSync(unit, "utf8");
    expect(text).toContain(`ExecStart=${binary} run\n`);
    expect(text).toContain(`Environment=FERMIX_HOME=${env.FERMIX_HOME}\n`);
    expect(text).toContain("Environment=FERMIX_OPIK_ENABLED=1\n");
    expect(text).not.toContain("sk-test");
    expect(fake.calls()).toEqual(["systemctl --user daemon-reload", "systemctl --user enable --now fermix.service"]);

    const again = await fermix("service", "install", "--user");
    expect(again.stdout).toBe(
      `fermix: the systemd user service at ${unit} is already up to date; it is enabled and started\n`,
    );
  });

  test("a drifted unit: status shows the diff, install rewrites and restarts it, status is clean again", async () => {
    const { fake, unit, fermix } = setup();
    await fermix("service", "install");
    writeFileSync(unit, readFileSync(unit, "utf8").replace("Restart=on-failure", "Restart=always"));
    fake.setActive("active");

    const status = await fermix("service", "status");
    expect(status.code).toBe(0);
    expect(status.stdout).toBe(
      [
        `service: systemd user service at ${unit}`,
        "unit: drifted from what this binary writes; `fermix service install` rewrites it:",
        "  - Restart=always",
        "  + Restart=on-failure",
        "manager: active",
        "daemon: not running",
        "",
      ].join("\n"),
    );

    const install = await fermix("service", "install");
    expect(install.stdout).toBe(
      `fermix: rewrote the systemd user service at ${unit}, which had drifted:\n  - Restart=always\n  + Restart=on-failure\nfermix: reloaded and restarted it\n`,
    );
    expect(fake.calls().slice(-3)).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user restart fermix.service",
      "systemctl --user enable --now fermix.service",
    ]);
    const json = JSON.parse((await fermix("service", "status", "--json")).stdout);
    expect(json).toMatchObject({
      schema_version: 1,
      ok: true,
      result: { kind: "systemd", scope: "user", path: unit, installed: true, drift: "same", serves_home: true },
    });
  });

  test("uninstall disables and removes; with nothing installed, status and uninstall say so", async () => {
    const { fake, unit, fermix } = setup();
    await fermix("service", "install");
    const removed = await fermix("service", "uninstall");
    expect(removed.stdout).toBe(`fermix: stopped and removed the systemd user service (${unit})\n`);
    expect(existsSync(unit)).toBe(false);
    expect(fake.calls().slice(-2)).toEqual([
      "systemctl --user disable --now fermix.service",
      "systemctl --user daemon-reload",
    ]);
    expect((await fermix("service", "uninstall")).stdout).toBe(
      `fermix: no systemd user service is installed (${unit})\n`,
    );
    expect((await fermix("service")).stdout).toBe(
      `service: no systemd user service installed (${unit})\ninstall it with: fermix service install\ndaemon: not running\n`,
    );
  });

  test("a manager that refuses: the command, its exit and its words, exit 1", async () => {
    const { fake, fermix } = setup();
    fake.failOn("enable", 1, "Failed to connect to bus: No medium found\n");
    const result = await fermix("service", "install");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "fermix: `systemctl --user enable --now fermix.service` failed (exit 1): Failed to connect to bus: No medium found; there is no systemd user session here (log in through a session, or use --system)\n",
    );
  });

  test("from source (`bun src/main.ts`) install is refused: a unit must point at a built binary", async () => {
    const { fake, unit, env } = setup();
    const { code, stderr } = await runCommand([process.execPath, join(ROOT, "src/main.ts"), "service", "install"], {
      env,
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      "fermix: a service must run a built fermix binary, not `bun src/main.ts`: build one (`bun run build`, then dist/fermix service install) or install a release\n",
    );
    expect(existsSync(unit)).toBe(false);
    expect(fake.calls()).toEqual([]);
  });

  test("usage errors and help", async () => {
    const { fermix } = setup();
    const both = await fermix("service", "install", "--user", "--system");
    expect(both.code).toBe(2);
    expect(both.stderr).toStartWith("fermix: service: choose one of --user and --system\n");
    const unknown = await fermix("service", "frob");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toStartWith('fermix: service: unknown subcommand "frob" (install, uninstall, status)\n');
    const help = await fermix("service", "--help");
    expect(help.stdout).toMatchInlineSnapshot(`
      "Usage: fermix service [<command>]

      Install, remove or inspect the service that runs the daemon.
      The service (systemd on Linux, launchd on macOS) runs the daemon at login or boot.

      Commands:
        install                  Install the service, enable and start it; rewrite it when it drifted
        uninstall                Stop and remove the service
        status                   Show whether the service is installed, up to date and running (the default)

      Options:
        -h, --help               show this help

      Run \`fermix service <command> --help\` for the options of a command.
      "
    `);
    // Each subcommand takes the scope and --json.
    const install = await fermix("service", "install", "--help");
    expect(install.stdout).toMatchInlineSnapshot(`
      "Usage: fermix service install [--user] [--system] [--json]

      Install the service, enable and start it; rewrite it when it drifted.

      Options:
        --user                   the per-user service (the default)
        --system                 the system-wide service (needs root)
        --json                   print the typed JSON envelope
        -h, --help               show this help

      Examples:
        fermix service install
        sudo fermix service install --system
      "
    `);
  });
});
