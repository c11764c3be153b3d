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
import { recoverInterruptedUpgrade } from "../../src/upgrade/journal.ts";
import type { UpgradeStage } from "../../src/upgrade/upgrade.ts";
import { fakeBinary, publish, startReleaseServer } from "../fake/release-server.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();
const CHILD = join(import.meta.dir, "_upgrade-child.ts");
const OLD = fakeBinary("0.1.0");
const NEW = fakeBinary("0.2.0");

async function setup() {
  const base = mkdtempSync(join(tmpdir(), "fx-crash-"));
  defer(() => rmSync(base, { recursive: true, force: true }));
  mkdirSync(join(base, "bin"));
  const binary = join(base, "bin", "fermix");
  writeFileSync(binary, OLD);
  chmodSync(binary, 0o755);
  const paths = fermixPaths(join(base, "home"));
  mkdirSync(paths.home, { recursive: true });
  const server = await startReleaseServer();
  defer(() => server.close());
  publish(server, [{ version: "0.2.0", target: "linux-x86_64", binary: NEW }]);
  const history = () =>
    readFileSync(paths.upgrade.history, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  return { base, binary, paths, server, history };
}

/** Runs the child until it reports `stage`, then SIGKILLs it: the stage line is the cue, no sleeps. */
async function killAt(s: Awaited<ReturnType<typeof setup>>, stage: UpgradeStage): Promise<void> {
  const child = Bun.spawn([process.execPath, CHILD, s.paths.home, s.binary, s.server.manifestUrl, stage], {
    stdout: "pipe",
    stderr: "pipe",
  });
  defer(() => child.kill("SIGKILL"));
  const stderr = new Response(child.stderr).text();
  let out = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    out += decoder.decode(chunk, { stream: true });
    if (out.includes(`stage:${stage}\n`)) break;
  }
  if (!out.includes(`stage:${stage}\n`)) throw new Error(`child never reached ${stage}:\n${out}\n${await stderr}`);
  child.kill("SIGKILL");
  expect(await child.exited).not.toBe(0);
}

const STAGES: UpgradeStage[] = ["locked", "downloaded", "verified", "previous_saved", "swapped"];

describe("an upgrade killed between steps", () => {
  for (const stage of STAGES) {
    test(`killed at ${stage}: the next start leaves the old binary in place, byte-identical, and cleans up`, async () => {
      const s = await setup();
      await killAt(s, stage);
      const recovery = recoverInterruptedUpgrade(s.paths.upgrade, { runningVersion: "0.1.0", asDaemon: false });
      expect(readFileSync(s.binary)).toEqual(Buffer.from(OLD));
      expect(readdirSync(join(s.base, "bin"))).toEqual(["fermix"]);
      expect(existsSync(s.paths.upgrade.journal)).toBe(false);
      if (stage === "locked") {
        // Nothing had been written yet: there is nothing to recover.
        expect(recovery.action).toBe("none");
      } else {
        expect(recovery.action).toBe(stage === "swapped" ? "rolled_back" : "cleaned");
        expect(s.history().at(-1)).toMatchObject({
          from: "0.1.0",
          to: "0.2.0",
          status: stage === "swapped" ? "rolled_back" : "interrupted",
        });
      }
    });
  }

  test("killed after the swap: a daemon of the new version starting confirms the upgrade instead", async () => {
    const s = await setup();
    await killAt(s, "swapped");
    const recovery = recoverInterruptedUpgrade(s.paths.upgrade, { runningVersion: "0.2.0", asDaemon: true });
    expect(recovery.action).toBe("confirmed");
    expect(readFileSync(s.binary)).toEqual(Buffer.from(NEW));
    expect(s.history().at(-1)).toMatchObject({ to: "0.2.0", status: "succeeded" });
  });
});

describe("a daemon starting while an upgrade is in flight", () => {
  test("leaves the journal to the upgrade that holds the lock", async () => {
    const s = await setup();
    await killAt(s, "swapped");
    // The upgrade is "still running": a live process holds its lock.
    writeFileSync(s.paths.upgrade.lock, `${process.pid} 0123456789abcdef`);
    const recovery = recoverInterruptedUpgrade(s.paths.upgrade, { runningVersion: "0.2.0", asDaemon: true });
    expect(recovery.action).toBe("none");
    expect(existsSync(s.paths.upgrade.journal)).toBe(true);
  });
});
