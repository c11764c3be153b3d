import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { systemServiceAccount } from "../../src/service/account.ts";
import { renderLaunchdPlist } from "../../src/service/launchd-plist.ts";
import { renderSystemdUnit, systemdEnvironmentLine } from "../../src/service/systemd-unit.ts";
import { planService, unitServesHome } from "../../src/service/target.ts";
import { pinnedPath, serviceEnvironment } from "../../src/service/unit-env.ts";

const GOLDEN = join(import.meta.dir, "golden");

/** Compares byte for byte; `UPDATE_GOLDEN=1 bun test test/service` rewrites the files instead. */
async function expectGolden(name: string, text: string) {
  const file = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(file, text);
  expect(text).toBe(await Bun.file(file).text());
}

/** Fixed inputs: a set-up shell with Opik settings (one needing quoting/escaping) and keys that must stay out. */
const ENV = {
  HOME: "/home/ada",
  FERMIX_HOME: "/home/ada/.fermix",
  FERMIX_OPIK_ENABLED: "1",
  FERMIX_OPIK_BASE_URL: "http://localhost:5173/api?a=1&b=<2>",
  FERMIX_OPIK_PROJECT: 'ada\'s "main" 100%',
  FERMIX_TRACE_CONTENT: "",
  OPENAI_API_KEY: "sk-test-openai-0123456789abcdef",
  OPIK_API_KEY: "opik-secret",
  FERMIX_DEBUG: "1",
};
const BINARY = "/usr/local/bin/fermix";
const ADA = { user: "ada", home: "/home/ada" };

describe("unit rendering", () => {
  test("the systemd user unit", async () => {
    const plan = planService({ scope: "user", env: ENV, binary: BINARY, platform: "linux" });
    expect(plan.target).toEqual({
      kind: "systemd",
      scope: "user",
      path: "/home/ada/.config/systemd/user/fermix.service",
    });
    await expectGolden("fermix.service", plan.content);
  });

  test("the systemd system unit runs as the owner's login account, never root", async () => {
    const plan = planService({
      scope: "system",
      env: ENV,
      binary: BINARY,
      platform: "linux",
      systemRoot: "/",
      account: ADA,
    });
    expect(plan.target.path).toBe("/etc/systemd/system/fermix.service");
    await expectGolden("fermix-system.service", plan.content);
    // As root without sudo there is no account to run as: refused, nothing planned.
    expect(() =>
      planService({ scope: "system", env: { HOME: "/root" }, binary: BINARY, platform: "linux", uid: 0 }),
    ).toThrow("never as root");
  });

  test("under sudo, the system unit belongs to the account that ran sudo, with its FERMIX_HOME", () => {
    const account = systemServiceAccount({ SUDO_USER: "ada", HOME: "/root" }, { uid: 0, homeOf: () => "/home/ada" });
    expect(account).toEqual(ADA);
    const plan = planService({ scope: "system", env: { HOME: "/root" }, binary: BINARY, platform: "linux", account });
    expect(plan.home).toBe("/home/ada/.fermix");
    expect(plan.content).toContain("User=ada\n");
    expect(plan.content).toContain("Environment=FERMIX_HOME=/home/ada/.fermix\n");
  });

  test("the launchd agent", async () => {
    const plan = planService({ scope: "user", env: ENV, binary: BINARY, platform: "darwin" });
    expect(plan.target.path).toBe("/home/ada/Library/LaunchAgents/io.tezra.fermix.plist");
    await expectGolden("io.tezra.fermix.plist", plan.content);
    const system = planService({
      scope: "system",
      env: ENV,
      binary: BINARY,
      platform: "darwin",
      systemRoot: "/x",
      account: ADA,
    });
    expect(system.target.path).toBe("/x/Library/LaunchDaemons/io.tezra.fermix.plist");
    expect(system.content).toContain("\t<key>UserName</key>\n\t<string>ada</string>\n");
  });

  test("no secret and nothing off the allowlist reaches a unit", () => {
    for (const platform of ["linux", "darwin"]) {
      const { content } = planService({ scope: "user", env: ENV, binary: BINARY, platform });
      expect(content).not.toContain("sk-test");
      expect(content).not.toContain("opik-secret");
      expect(content).not.toContain("FERMIX_DEBUG");
      expect(content).not.toContain("FERMIX_TRACE_CONTENT"); // empty means unset
    }
    expect(serviceEnvironment({ binary: BINARY, home: "/h", env: ENV }).map(([k]) => k)).toEqual([
      "FERMIX_HOME",
      "PATH",
      "FERMIX_OPIK_ENABLED",
      "FERMIX_OPIK_BASE_URL",
      "FERMIX_OPIK_PROJECT",
    ]);
  });

  test("FERMIX_HOME defaults to ~/.fermix of the HOME given", () => {
    const { content } = planService({ scope: "user", env: { HOME: "/home/bo" }, binary: BINARY, platform: "linux" });
    expect(content).toContain("Environment=FERMIX_HOME=/home/bo/.fermix\n");
  });

  test("the pinned PATH: the binary's directory first, system dirs, Homebrew, no duplicates", () => {
    expect(pinnedPath("/usr/local/bin/fermix")).toBe(
      "/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/homebrew/bin:/home/linuxbrew/.linuxbrew/bin",
    );
    expect(pinnedPath("/opt/homebrew/Cellar/fermix/1.2.0/bin/fermix").split(":")[0]).toBe(
      "/opt/homebrew/Cellar/fermix/1.2.0/bin",
    );
    expect(pinnedPath("/home/ada/.local/bin/fermix")).toStartWith("/home/ada/.local/bin:/usr/local/sbin:");
  });

  test("systemd quoting: spaces, quotes, backslashes, %, $ and newlines", () => {
    expect(systemdEnvironmentLine("A", "plain/value:1")).toBe("Environment=A=plain/value:1");
    expect(systemdEnvironmentLine("A", "two words")).toBe('Environment="A=two words"');
    expect(systemdEnvironmentLine("A", 'say "hi" \\ now')).toBe('Environment="A=say \\"hi\\" \\\\ now"');
    expect(systemdEnvironmentLine("A", "50%")).toBe("Environment=A=50%%");
    expect(systemdEnvironmentLine("A", "a\nb")).toBe('Environment="A=a\\nb"');
    const unit = renderSystemdUnit({ binary: "/opt/my apps/$x/fermix", scope: "user", environment: [] });
    expect(unit).toContain('ExecStart="/opt/my apps/$$x/fermix" run\n');
  });

  test("plist values are XML-escaped", () => {
    const plist = renderLaunchdPlist({
      label: "io.tezra.fermix",
      binary: "/Apps/R&D <x>/fermix",
      environment: [["K", `"q" 'a'`]],
      outputPath: "/l",
    });
    expect(plist).toContain("<string>/Apps/R&amp;D &lt;x&gt;/fermix</string>");
    expect(plist).toContain("<string>&quot;q&quot; &apos;a&apos;</string>");
  });

  test("a unit names the FERMIX_HOME it serves", () => {
    for (const platform of ["linux", "darwin"]) {
      const plan = planService({
        scope: "user",
        env: { HOME: "/u", FERMIX_HOME: "/u/my home" },
        binary: BINARY,
        platform,
      });
      expect(unitServesHome(plan.target.kind, plan.content, "/u/my home")).toBe(true);
      expect(unitServesHome(plan.target.kind, plan.content, "/u/my")).toBe(false);
      expect(unitServesHome(plan.target.kind, plan.content, "/u/.fermix")).toBe(false);
    }
  });
});
