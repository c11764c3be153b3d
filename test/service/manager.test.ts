import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { createServiceManager } from "../../src/service/manager.ts";
import type { ServiceTarget } from "../../src/service/service-target.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { fakeManager } from "./service-fixture.ts";

const defer = cleanupAfterEach();

function setup(target: ServiceTarget) {
  const fake = fakeManager();
  defer(() => fake.remove());
  const manager = createServiceManager(target, { env: { PATH: fake.path, ...fake.env }, uid: 501 });
  return { fake, manager };
}

const systemdUser: ServiceTarget = { kind: "systemd", scope: "user", path: "/h/.config/systemd/user/fermix.service" };
const systemdSystem: ServiceTarget = { kind: "systemd", scope: "system", path: "/etc/systemd/system/fermix.service" };
const launchdUser: ServiceTarget = {
  kind: "launchd",
  scope: "user",
  path: "/h/Library/LaunchAgents/io.tezra.fermix.plist",
};

describe("the systemd adapter", () => {
  test("user scope: systemctl --user on fermix.service", async () => {
    const { fake, manager } = setup(systemdUser);
    await manager.reload();
    await manager.enable();
    await manager.start();
    await manager.restart();
    await manager.stop();
    await manager.disable();
    expect(await manager.state()).toEqual({ active: false, state: "inactive" });
    fake.setActive("active");
    expect(await manager.state()).toEqual({ active: true, state: "active" });
    expect(fake.calls()).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable --now fermix.service",
      "systemctl --user start fermix.service",
      "systemctl --user restart fermix.service",
      "systemctl --user stop fermix.service",
      "systemctl --user disable --now fermix.service",
      "systemctl --user is-active fermix.service",
      "systemctl --user is-active fermix.service",
    ]);
  });

  test("system scope: plain systemctl; a refusal names the command and says to use sudo", async () => {
    const { fake, manager } = setup(systemdSystem);
    await manager.reload();
    fake.failOn("enable", 1, "Failed to enable unit: Access denied\n");
    const err = await manager.enable().catch((e) => e);
    expect(err.code).toBe("service_command_failed");
    expect(err.message).toBe(
      "`systemctl enable --now fermix.service` failed (exit 1): Failed to enable unit: Access denied; the system service needs root: run it with sudo",
    );
    expect(fake.calls()).toEqual(["systemctl daemon-reload", "systemctl enable --now fermix.service"]);
  });

  test("no user session bus: the error says so", async () => {
    const { fake, manager } = setup(systemdUser);
    fake.failOn("daemon-reload", 1, "Failed to connect to bus: No medium found\n");
    const err = await manager.reload().catch((e) => e);
    expect(err.message).toContain("there is no systemd user session here");
  });

  test("a manager that is not installed is named", async () => {
    const manager = createServiceManager(systemdUser, { env: { PATH: "/nonexistent" } });
    const err = await manager.start().catch((e) => e);
    expect(err.code).toBe("service_manager_missing");
    expect(err.message).toContain("systemctl was not found on PATH");
  });
});

describe("the launchd adapter", () => {
  test("start bootstraps an unloaded job, kickstarts a loaded one; stop and disable boot it out", async () => {
    const { fake, manager } = setup(launchdUser);
    await manager.reload(); // launchd has no reload: nothing runs
    expect(await manager.state()).toEqual({ active: false, state: "not loaded" });
    await manager.enable();
    expect(await manager.state()).toEqual({ active: true, state: "running", pid: 4242 });
    await manager.start();
    await manager.stop();
    await manager.stop(); // not loaded any more: nothing to boot out
    expect(fake.calls()).toEqual([
      "launchctl print gui/501/io.tezra.fermix",
      "launchctl print gui/501/io.tezra.fermix",
      `launchctl bootstrap gui/501 ${launchdUser.path}`,
      "launchctl print gui/501/io.tezra.fermix",
      "launchctl print gui/501/io.tezra.fermix",
      "launchctl kickstart gui/501/io.tezra.fermix",
      "launchctl print gui/501/io.tezra.fermix",
      "launchctl bootout gui/501/io.tezra.fermix",
      "launchctl print gui/501/io.tezra.fermix",
    ]);
  });

  test("restart unloads and bootstraps again, so a rewritten plist takes effect", async () => {
    const { fake, manager } = setup(launchdUser);
    writeFileSync(`${fake.dir}/loaded`, "");
    await manager.restart();
    expect(fake.calls()).toEqual([
      "launchctl print gui/501/io.tezra.fermix",
      "launchctl bootout gui/501/io.tezra.fermix",
      `launchctl bootstrap gui/501 ${launchdUser.path}`,
    ]);
  });

  test("system scope uses the system domain", async () => {
    const target: ServiceTarget = {
      kind: "launchd",
      scope: "system",
      path: "/Library/LaunchDaemons/io.tezra.fermix.plist",
    };
    const { fake, manager } = setup(target);
    await manager.start();
    expect(fake.calls()).toEqual([
      "launchctl print system/io.tezra.fermix",
      `launchctl bootstrap system ${target.path}`,
    ]);
  });
});
