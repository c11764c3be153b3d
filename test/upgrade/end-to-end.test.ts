import { describe, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Of } from "../../src/upgrade/journal.ts";
import { fakeBinary, publish, startReleaseServer } from "../fake/release-server.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { buildRelease, serveRelease } from "../fixture/release.ts";
import { REFUSALS } from "./_refusals.ts";

const defer = cleanupAfterEach();
const release = await buildRelease({ versions: ["0.1.0", "0.2.0"] });

type Run = { code: number; stdout: string; stderr: string };

/** A machine: an empty HOME, a FERMIX_HOME, a prefix; every fermix run gets this env and a bare PATH. */
function machine() {
  const base = mkdtempSync(join(tmpdir(), "fx-e2e-"));
  const home = join(base, "home");
  const fermixHome = join(base, "fh");
  mkdirSync(home);
  const bin = join(base, "prefix", "bin", "fermix");
  const env = (extra: Record<string, string> = {}) => ({
    HOME: home,
    FERMIX_HOME: fermixHome,
    PATH: "/usr/bin:/bin",
    ...extra,
  });
  const run = async (argv: string[], extra: Record<string, string> = {}): Promise<Run> => {
    return runCommand(argv, { env: env(extra), cwd: base });
  };
  const fermix = (args: string[], extra: Record<string, string> = {}) => run([bin, ...args], extra);
  // Whatever a test started, nothing outlives it: stop the daemon of this home, then remove everything.
  defer(async () => {
    if (existsSync(bin)) await fermix(["stop"]);
    rmSync(base, { recursive: true, force: true });
  });
  const history = () =>
    readFileSync(join(fermixHome, "upgrades.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  return { base, home, fermixHome, bin, run, fermix, history };
}

describe("install, then upgrade, on loopback", () => {
  test("install.sh installs 0.1.0, fermix upgrade moves to 0.2.0, and the daemon then reports 0.2.0", async () => {
    const server = await serveRelease(release.root);
    defer(() => server.close());
    const m = machine();
    const installed = await m.run(
      ["sh", join(release.root, "install.sh"), "--prefix", join(m.base, "prefix"), "--version", "0.1.0"],
      { FERMIX_RELEASES_URL: server.manifestUrl },
    );
    expect(installed.code).toBe(0);
    expect((await m.fermix(["--version"])).stdout).toBe("0.1.0\n");

    const started = await m.fermix(["start"]);
    expect(started.code).toBe(0);
    expect(started.stdout).toContain("version 0.1.0");

    const check = await m.fermix(["upgrade", "--check"], { FERMIX_RELEASES_URL: server.manifestUrl });
    expect(check).toMatchObject({ code: 0, stdout: "fermix 0.1.0: 0.2.0 is available (fermix upgrade installs it)\n" });

    const upgraded = await m.fermix(["upgrade"], { FERMIX_RELEASES_URL: server.manifestUrl });
    expect(upgraded.stderr).toContain("verified: sha256");
    expect(upgraded).toMatchObject({
      code: 0,
      stdout: "fermix: upgraded 0.1.0 → 0.2.0; the daemon now runs 0.2.0\n",
    });
    expect((await m.fermix(["--version"])).stdout).toBe("0.2.0\n");
    const status = JSON.parse((await m.fermix(["status", "--json"])).stdout);
    expect(status.result).toMatchObject({ version: "0.2.0", cli_version: "0.2.0" });
    expect(readFileSync(join(m.fermixHome, ".previous"))).toEqual(readFileSync(release.binary("0.1.0")));
    expect(m.history()).toEqual([
      {
        from: "0.1.0",
        to: "0.2.0",
        timestamp: expect.any(String),
        sha256: sha256Of(release.binary("0.2.0")),
        status: "succeeded",
      },
    ]);
    // Nothing newer: a second run says so and changes nothing.
    const again = await m.fermix(["upgrade"], { FERMIX_RELEASES_URL: server.manifestUrl });
    expect(again).toMatchObject({ code: 0, stdout: "fermix 0.2.0 is up to date\n" });
  }, 60_000);

  test("a new version whose daemon fails its health check is rolled back, and the old version runs afterwards", async () => {
    const m = machine();
    mkdirSync(join(m.base, "prefix", "bin"), { recursive: true });
    copyFileSync(release.binary("0.1.0"), m.bin);
    const before = sha256Of(m.bin);
    expect((await m.fermix(["start"])).code).toBe(0);
    // A validly signed 0.3.0 for this target whose daemon exits at once instead of serving.
    const server = await startReleaseServer();
    defer(() => server.close());
    publish(server, [{ version: "0.3.0", target: release.target, binary: fakeBinary("0.3.0") }]);

    const result = await m.fermix(["upgrade"], { FERMIX_RELEASES_URL: server.manifestUrl });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "fermix: 0.3.0 failed its health check (exited with code 0); rolled back, 0.1.0 is running again\n",
    );
    expect(sha256Of(m.bin)).toBe(before);
    const status = JSON.parse((await m.fermix(["status", "--json"])).stdout);
    expect(status.result.version).toBe("0.1.0");
    expect(m.history().at(-1)).toMatchObject({ from: "0.1.0", to: "0.3.0", status: "rolled_back" });
  }, 60_000);

  test("a config.toml the new version's daemon would refuse: refused before the swap, the daemon keeps running", async () => {
    const server = await serveRelease(release.root);
    defer(() => server.close());
    const m = machine();
    mkdirSync(join(m.base, "prefix", "bin"), { recursive: true });
    copyFileSync(release.binary("0.1.0"), m.bin);
    const before = sha256Of(m.bin);
    expect((await m.fermix(["start"])).code).toBe(0);
    const pid = JSON.parse((await m.fermix(["status", "--json"])).stdout).result.pid;
    // Readable as TOML and by the schema; refused by the routing check a daemon makes at start.
    writeFileSync(join(m.fermixHome, "config.toml"), '[fermix_core.routing]\ncron_provider = "gemini"\n');

    const result = await m.fermix(["upgrade"], { FERMIX_RELEASES_URL: server.manifestUrl });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `fermix: fermix 0.2.0 would not start on this config: ${join(m.fermixHome, "config.toml")}: ` +
        '[fermix_core.routing] cron_provider: unknown provider "gemini"; nothing was changed and the daemon was not stopped\n',
    );
    expect(sha256Of(m.bin)).toBe(before);
    const status = JSON.parse((await m.fermix(["status", "--json"])).stdout);
    expect(status.result).toMatchObject({ version: "0.1.0", pid });
    expect(m.history().at(-1)).toMatchObject({ from: "0.1.0", to: "0.2.0", status: "refused" });
  }, 60_000);

  test("a binary replaced under a running daemon (as brew upgrade does): status names fermix restart", async () => {
    const m = machine();
    mkdirSync(join(m.base, "prefix", "bin"), { recursive: true });
    copyFileSync(release.binary("0.1.0"), m.bin);
    expect((await m.fermix(["start"])).code).toBe(0);
    // The package manager swaps the file; the daemon keeps running the old code.
    copyFileSync(release.binary("0.2.0"), `${m.bin}.new`);
    renameSync(`${m.bin}.new`, m.bin);
    const status = await m.fermix(["status"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("version 0.1.0");
    expect(status.stdout).toMatch(
      /warning: the daemon runs version 0\.1\.0 but this binary is 0\.2\.0.*fermix restart/,
    );
    const restarted = await m.fermix(["restart"]);
    expect(restarted.stdout).toMatch(/^fermix: restarted \(pid \d+, version 0\.2\.0\)\n$/);
  }, 60_000);

  test("a binary under a Cellar path refuses to self-upgrade and prints the brew command", async () => {
    const m = machine();
    const cellar = join(m.base, "homebrew", "Cellar", "fermix", "0.1.0", "bin");
    mkdirSync(cellar, { recursive: true });
    const bin = join(cellar, "fermix");
    copyFileSync(release.binary("0.1.0"), bin);
    const before = sha256Of(bin);
    const result = await m.run([bin, "upgrade"], { FERMIX_RELEASES_URL: "http://127.0.0.1:9/releases.json" });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `fermix: ${bin} is managed by Homebrew; upgrade it with: brew upgrade fermix (then fermix restart)\n`,
    );
    expect(sha256Of(bin)).toBe(before);
  }, 60_000);
});

describe("the compiled binary refuses what it cannot trust", () => {
  for (const [name, arrange, message] of REFUSALS) {
    test(`fermix upgrade refuses ${name}; the installed binary stays byte-identical`, async () => {
      const m = machine();
      mkdirSync(join(m.base, "prefix", "bin"), { recursive: true });
      copyFileSync(release.binary("0.1.0"), m.bin);
      const before = sha256Of(m.bin);
      const server = await startReleaseServer();
      defer(() => server.close());
      arrange(server, release.target);
      const result = await m.fermix(["upgrade"], { FERMIX_RELEASES_URL: server.manifestUrl });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(sha256Of(m.bin)).toBe(before);
      expect(readdirSync(join(m.base, "prefix", "bin"))).toEqual(["fermix"]);
    }, 30_000);
  }
});
