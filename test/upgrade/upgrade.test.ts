import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fermixPaths } from "../../src/config/paths.ts";
import { createTrustMaterial } from "../../src/trust/trust-material.ts";
import { checkConfigWith } from "../../src/upgrade/config-check.ts";
import { type DaemonControl, type UpgradeDeps, upgrade } from "../../src/upgrade/upgrade.ts";
import { fakeBinary, publish, startReleaseServer } from "../fake/release-server.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { REFUSALS } from "./_refusals.ts";

const defer = cleanupAfterEach();

/**
 * A release that answers `check-config` as a real one does: "refuses" prints the daemon's sentence and exits 1;
 * "predates" is a release from before the check (an unknown command, exit 2).
 */
function binaryWithCheck(version: string, check: "refuses" | "predates"): Uint8Array {
  const answer =
    check === "refuses"
      ? 'echo "fermix: $FERMIX_HOME/config.toml: [fermix_core.routing] subagent_provider: unknown provider \\"nope\\"" >&2; exit 1'
      : 'echo "fermix: unknown command: check-config" >&2; exit 2';
  return new TextEncoder().encode(
    `#!/bin/sh\n[ "$1" = "--version" ] && echo ${version} && exit 0\n[ "$1" = "check-config" ] && { ${answer}; }\nexit 0\n`,
  );
}
const TARGET = "linux-x86_64";
const DEV_PUBLIC_KEY = readFileSync(join(import.meta.dir, "../../catalog/keys/dev-signing-key.pub.pem"), "utf8");
const trust = createTrustMaterial({ publicKeys: [DEV_PUBLIC_KEY] });

/** A daemon stand-in: restarting runs the binary's --version, and a binary marked "unhealthy" never answers. */
function fakeDaemon(initial: string | undefined): DaemonControl & { running?: string; restarts: string[] } {
  const state = {
    running: initial,
    restarts: [] as string[],
    async health() {
      return state.running ? { running: true as const, version: state.running, pid: 1 } : { running: false as const };
    },
    async serviceInstalled() {
      return false;
    },
    async restart(binary: string) {
      const text = readFileSync(binary, "utf8");
      const version = Bun.spawnSync([binary, "--version"]).stdout.toString().trim();
      state.restarts.push(version);
      state.running = text.includes("unhealthy") ? undefined : version;
    },
    async waitFor(version: string) {
      if (state.running === version) return { ok: true as const };
      return { ok: false as const, reason: state.running ? `reports ${state.running}` : "not answering" };
    },
  };
  return state;
}

async function setup(opts: { installed?: string; daemon?: string } = {}) {
  const base = mkdtempSync(join(tmpdir(), "fx-up-"));
  defer(() => rmSync(base, { recursive: true, force: true }));
  const bin = join(base, "bin");
  mkdirSync(bin);
  const binary = join(bin, "fermix");
  writeFileSync(binary, fakeBinary(opts.installed ?? "0.1.0"));
  chmodSync(binary, 0o755);
  const paths = fermixPaths(join(base, "home"));
  mkdirSync(paths.home, { recursive: true });
  const server = await startReleaseServer();
  defer(() => server.close());
  const daemon = fakeDaemon(opts.daemon === undefined ? (opts.installed ?? "0.1.0") : opts.daemon || undefined);
  const deps: UpgradeDeps = {
    paths: paths.upgrade,
    binary,
    currentVersion: opts.installed ?? "0.1.0",
    target: TARGET,
    manifestUrl: server.manifestUrl,
    fetch: (input, init) => fetch(input, init),
    trust,
    daemon,
    runVersion: async (b) => Bun.spawnSync([b, "--version"]).stdout.toString().trim(),
    checkConfig: (b) => checkConfigWith(b, { FERMIX_HOME: paths.home }),
    healthTimeoutMs: 500,
  };
  const before = readFileSync(binary);
  const history = () =>
    existsSync(paths.upgrade.history)
      ? readFileSync(paths.upgrade.history, "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l))
      : [];
  const leftovers = () => readdirSync(bin).filter((f) => f !== "fermix");
  return { base, binary, paths, server, daemon, deps, before, history, leftovers };
}

describe("fermix upgrade (the steps, with a stand-in daemon)", () => {
  test("moves to the newer signed release, restarts the daemon on it, and records it", async () => {
    const s = await setup();
    publish(s.server, [{ version: "0.2.0", target: TARGET, binary: fakeBinary("0.2.0") }]);
    const outcome = await upgrade({}, s.deps);
    expect(outcome).toMatchObject({ kind: "upgraded", from: "0.1.0", to: "0.2.0", daemon: "restarted" });
    expect(Bun.spawnSync([s.binary, "--version"]).stdout.toString().trim()).toBe("0.2.0");
    expect(readFileSync(s.paths.upgrade.previous)).toEqual(s.before);
    expect(s.daemon.running).toBe("0.2.0");
    expect(s.history()).toEqual([
      expect.objectContaining({ from: "0.1.0", to: "0.2.0", status: "succeeded", sha256: expect.any(String) }),
    ]);
    expect(s.leftovers()).toEqual([]);
    expect(existsSync(s.paths.upgrade.journal)).toBe(false);
  });

  test("--check only reports, and changes nothing", async () => {
    const s = await setup();
    publish(s.server, [{ version: "0.2.0", target: TARGET, binary: fakeBinary("0.2.0") }]);
    expect(await upgrade({ check: true }, s.deps)).toEqual({ kind: "available", from: "0.1.0", to: "0.2.0" });
    expect(readFileSync(s.binary)).toEqual(s.before);
    expect(s.history()).toEqual([]);
  });

  test("the same version is up to date", async () => {
    const s = await setup();
    publish(s.server, [{ version: "0.1.0", target: TARGET, binary: fakeBinary("0.1.0") }]);
    expect(await upgrade({}, s.deps)).toEqual({ kind: "up_to_date", version: "0.1.0" });
  });

  for (const [name, arrange, message] of REFUSALS) {
    test(`refuses ${name}, leaving the installed binary byte-identical`, async () => {
      const s = await setup();
      arrange(s.server, TARGET);
      const error = await upgrade({}, s.deps).then(
        () => undefined,
        (e) => e,
      );
      expect(error?.message).toMatch(message);
      expect(readFileSync(s.binary)).toEqual(s.before);
      expect(s.leftovers()).toEqual([]);
      expect(s.daemon.restarts).toEqual([]);
      expect(existsSync(s.paths.upgrade.journal)).toBe(false);
      if (!/outside the release origin/.test(String(message))) {
        expect(s.history().at(-1)).toMatchObject({ from: "0.1.0", status: "refused" });
      }
    });
  }

  test("--allow-downgrade installs an older signed release", async () => {
    const s = await setup({ installed: "0.2.0" });
    publish(s.server, [{ version: "0.1.0", target: TARGET, binary: fakeBinary("0.1.0") }]);
    const outcome = await upgrade({ version: "0.1.0", allowDowngrade: true }, s.deps);
    expect(outcome).toMatchObject({ kind: "upgraded", from: "0.2.0", to: "0.1.0" });
  });

  test("a new version whose daemon fails its health check is rolled back, and the old one runs again", async () => {
    const s = await setup();
    publish(s.server, [{ version: "0.2.0", target: TARGET, binary: fakeBinary("0.2.0", "unhealthy") }]);
    const error = await upgrade({}, s.deps).then(
      () => undefined,
      (e) => e,
    );
    expect(error?.code).toBe("upgrade_rolled_back");
    expect(error?.message).toBe("0.2.0 failed its health check (not answering); rolled back, 0.1.0 is running again");
    expect(readFileSync(s.binary)).toEqual(s.before);
    expect(s.daemon.restarts).toEqual(["0.2.0", "0.1.0"]);
    expect(s.daemon.running).toBe("0.1.0");
    expect(s.history().at(-1)).toMatchObject({ from: "0.1.0", to: "0.2.0", status: "rolled_back" });
  });

  test("a release whose daemon would refuse config.toml is refused before the swap; the daemon is not touched", async () => {
    const s = await setup();
    publish(s.server, [{ version: "0.2.0", target: TARGET, binary: binaryWithCheck("0.2.0", "refuses") }]);
    const error = await upgrade({}, s.deps).then(
      () => undefined,
      (e) => e,
    );
    expect(error?.code).toBe("upgrade_refused");
    expect(error?.message).toBe(
      `fermix 0.2.0 would not start on this config: ${s.paths.home}/config.toml: [fermix_core.routing] subagent_provider: ` +
        'unknown provider "nope"; nothing was changed and the daemon was not stopped',
    );
    expect(readFileSync(s.binary)).toEqual(s.before);
    expect(s.leftovers()).toEqual([]);
    expect(s.daemon.restarts).toEqual([]);
    expect(s.daemon.running).toBe("0.1.0");
    expect(existsSync(s.paths.upgrade.previous)).toBe(false);
    expect(existsSync(s.paths.upgrade.journal)).toBe(false);
    expect(s.history().at(-1)).toMatchObject({ from: "0.1.0", to: "0.2.0", status: "refused" });
  });

  test("a release from before the config check is installed, its start watched by the health wait", async () => {
    const s = await setup();
    const said: string[] = [];
    publish(s.server, [{ version: "0.2.0", target: TARGET, binary: binaryWithCheck("0.2.0", "predates") }]);
    const outcome = await upgrade({}, { ...s.deps, say: (line) => said.push(line) });
    expect(outcome).toMatchObject({ kind: "upgraded", to: "0.2.0", daemon: "restarted" });
    expect(said).toContain("0.2.0 has no config check; its start is watched instead");
  });

  test("with no daemon to restart, the config is not checked: the binary is replaced", async () => {
    const s = await setup({ daemon: "" });
    publish(s.server, [{ version: "0.2.0", target: TARGET, binary: binaryWithCheck("0.2.0", "refuses") }]);
    expect(await upgrade({}, s.deps)).toMatchObject({ kind: "upgraded", daemon: "not_running" });
  });

  test("with no daemon running, the binary is replaced and nothing is started", async () => {
    const s = await setup({ daemon: "" });
    publish(s.server, [{ version: "0.2.0", target: TARGET, binary: fakeBinary("0.2.0") }]);
    expect(await upgrade({}, s.deps)).toMatchObject({ kind: "upgraded", daemon: "not_running" });
    expect(s.daemon.restarts).toEqual([]);
  });

  test("a second upgrade while one holds the lock is refused", async () => {
    const s = await setup();
    publish(s.server, [{ version: "0.2.0", target: TARGET, binary: fakeBinary("0.2.0") }]);
    // A live process (this one's parent shell would do; use our own pid) holds the lock.
    writeFileSync(s.paths.upgrade.lock, `${process.ppid} 0123456789abcdef`);
    const error = await upgrade({}, s.deps).then(
      () => undefined,
      (e) => e,
    );
    expect(error?.code).toBe("upgrade_busy");
    expect(readFileSync(s.binary)).toEqual(s.before);
  });
});
