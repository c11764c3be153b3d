import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installService, serviceStatus, uninstallService } from "../../src/service/install.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { fakeManager } from "./service-fixture.ts";

const defer = cleanupAfterEach();
const BINARY = "/usr/local/bin/fermix";

function setup() {
  const base = mkdtempSync(join(tmpdir(), "fx-svc-"));
  const fake = fakeManager();
  defer(() => rmSync(base, { recursive: true, force: true }));
  defer(() => fake.remove());
  const env = { HOME: base, FERMIX_HOME: join(base, "h"), PATH: fake.path, ...fake.env };
  return { base, fake, env, systemRoot: join(base, "root") };
}

describe("service install / uninstall / status (fake managers)", () => {
  test("user install on Linux: the unit under ~/.config, daemon-reload, enable --now; again: up to date", async () => {
    const { base, fake, env } = setup();
    const path = join(base, ".config/systemd/user/fermix.service");
    const first = await installService({ scope: "user", env, binary: BINARY, platform: "linux" });
    expect(first).toMatchObject({ action: "created", kind: "systemd", scope: "user", path });
    expect(readFileSync(path, "utf8")).toContain(`Environment=FERMIX_HOME=${env.FERMIX_HOME}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o644);
    const second = await installService({ scope: "user", env, binary: BINARY, platform: "linux" });
    expect(second.action).toBe("unchanged");
    expect(fake.calls()).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable --now fermix.service",
      "systemctl --user enable --now fermix.service",
    ]);
  });

  test("system install as root writes under the system root; without root nothing is written", async () => {
    const { fake, env, systemRoot } = setup();
    const path = join(systemRoot, "etc/systemd/system/fermix.service");
    const refused = await installService({
      scope: "system",
      env,
      binary: BINARY,
      platform: "linux",
      systemRoot,
      uid: 1000,
    }).catch((e) => e);
    expect(refused.code).toBe("needs_root");
    expect(refused.message).toContain("run `sudo fermix service install --system`");
    expect(existsSync(path)).toBe(false);
    expect(fake.calls()).toEqual([]);

    const done = await installService({
      scope: "system",
      env,
      binary: BINARY,
      platform: "linux",
      systemRoot,
      uid: 0,
      account: { user: "ada", home: env.HOME! },
    });
    expect(done).toMatchObject({ action: "created", scope: "system", path });
    expect(readFileSync(path, "utf8")).toContain("WantedBy=multi-user.target\n");
    expect(readFileSync(path, "utf8")).toContain("User=ada\n");
    expect(fake.calls()).toEqual(["systemctl daemon-reload", "systemctl enable --now fermix.service"]);
  });

  test("launchd user install: the plist under ~/Library/LaunchAgents, bootstrapped into gui/<uid>", async () => {
    const { base, fake, env } = setup();
    const path = join(base, "Library/LaunchAgents/io.tezra.fermix.plist");
    const result = await installService({ scope: "user", env, binary: BINARY, platform: "darwin", uid: 501 });
    expect(result).toMatchObject({ action: "created", kind: "launchd", path });
    expect(readFileSync(path, "utf8")).toContain("<string>io.tezra.fermix</string>");
    expect(fake.calls()).toEqual(["launchctl print gui/501/io.tezra.fermix", `launchctl bootstrap gui/501 ${path}`]);
    const status = await serviceStatus({ scope: "user", env, binary: BINARY, platform: "darwin", uid: 501 });
    expect(status).toMatchObject({
      installed: true,
      drift: "same",
      manager: { active: true, state: "running", pid: 4242 },
    });
  });

  test("a drifted unit is rewritten and restarted, and the report shows what changed", async () => {
    const { base, fake, env } = setup();
    await installService({ scope: "user", env, binary: BINARY, platform: "linux" });
    const path = join(base, ".config/systemd/user/fermix.service");
    writeFileSync(path, readFileSync(path, "utf8").replace("LimitNOFILE=65536", "LimitNOFILE=1024"));
    const before = await serviceStatus({ scope: "user", env, binary: BINARY, platform: "linux" });
    expect(before).toMatchObject({ drift: "drifted", diff: ["- LimitNOFILE=1024", "+ LimitNOFILE=65536"] });

    const result = await installService({ scope: "user", env, binary: BINARY, platform: "linux" });
    expect(result).toMatchObject({ action: "rewritten", diff: ["- LimitNOFILE=1024", "+ LimitNOFILE=65536"] });
    expect(fake.calls().slice(-3)).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user restart fermix.service",
      "systemctl --user enable --now fermix.service",
    ]);
    expect((await serviceStatus({ scope: "user", env, binary: BINARY, platform: "linux" })).drift).toBe("same");
  });

  test("status: not installed, then installed with the manager's state and the daemon's", async () => {
    const { base, fake, env } = setup();
    const none = await serviceStatus({ scope: "user", env, binary: BINARY, platform: "linux" });
    expect(none).toEqual({
      kind: "systemd",
      scope: "user",
      path: join(base, ".config/systemd/user/fermix.service"),
      installed: false,
      drift: "missing",
      diff: [],
      home: env.FERMIX_HOME,
      serves_home: false,
      manager: null,
      daemon: { running: false },
    });
    expect(fake.calls()).toEqual([]); // nothing installed: the manager is not asked
    await installService({ scope: "user", env, binary: BINARY, platform: "linux" });
    fake.setActive("active");
    const some = await serviceStatus({ scope: "user", env, platform: "linux" });
    expect(some).toMatchObject({
      installed: true,
      drift: "unchecked", // no binary to compare with
      serves_home: true,
      manager: { active: true, state: "active" },
    });
    const other = await serviceStatus({
      scope: "user",
      env: { ...env, FERMIX_HOME: join(base, "other") },
      platform: "linux",
    });
    expect(other.serves_home).toBe(false);
  });

  test("uninstall disables, removes the file and reloads; with nothing installed it only says so", async () => {
    const { base, fake, env } = setup();
    const path = join(base, ".config/systemd/user/fermix.service");
    expect(await uninstallService({ scope: "user", env, platform: "linux" })).toEqual({
      removed: false,
      kind: "systemd",
      scope: "user",
      path,
    });
    expect(fake.calls()).toEqual([]);
    await installService({ scope: "user", env, binary: BINARY, platform: "linux" });
    expect((await uninstallService({ scope: "user", env, platform: "linux" })).removed).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(fake.calls().slice(2)).toEqual([
      "systemctl --user disable --now fermix.service",
      "systemctl --user daemon-reload",
    ]);
  });

  test("launchd uninstall boots the job out first", async () => {
    const { fake, env } = setup();
    await installService({ scope: "user", env, binary: BINARY, platform: "darwin", uid: 501 });
    await uninstallService({ scope: "user", env, platform: "darwin", uid: 501 });
    expect(fake.calls().slice(2)).toEqual([
      "launchctl print gui/501/io.tezra.fermix",
      "launchctl bootout gui/501/io.tezra.fermix",
    ]);
  });
});
