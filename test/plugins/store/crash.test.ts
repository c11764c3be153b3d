import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, readlinkSync, renameSync } from "node:fs";
import { join } from "node:path";
import { treeDigestOfDir } from "../../../src/plugins/archive/tree-digest.ts";
import type { InstallStage } from "../../../src/plugins/store/install.ts";
import { createPluginStore } from "../../../src/plugins/store/plugin-store.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";
import { installInput, pluginArtifact, snapshot, storePaths } from "./_fixture.ts";

const defer = cleanupAfterEach();
const CHILD = join(import.meta.dir, "_install-child.ts");
const STAGES: InstallStage[] = [
  "locked",
  "downloaded",
  "verified",
  "extracted",
  "validated",
  "swapped",
  "linked",
  "recorded",
];

async function homeWithV1() {
  const home = tempHome();
  defer(() => home[Symbol.asyncDispose]());
  const paths = storePaths(home.home);
  const store = createPluginStore({ paths });
  await store.install(installInput("demo", "1.0.0", await pluginArtifact("demo", "1.0.0")));
  return { home: home.home, paths, store };
}

/** Runs the child until it reports `stage`, then SIGKILLs it: no sleeps, the stage line is the cue. */
async function killAt(home: string, stage: InstallStage): Promise<void> {
  const child = Bun.spawn([process.execPath, CHILD, home, stage], { stdout: "pipe", stderr: "pipe" });
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
  expect(child.signalCode).toBe("SIGKILL");
}

async function expectActive(store: ReturnType<typeof createPluginStore>, version: string) {
  const active = await store.current("demo");
  expect(active?.record.version).toBe(version);
  expect(readFileSync(join(active!.dir, "skills/hello/SKILL.md"), "utf8")).toBe(`# hello from demo ${version}\n`);
  // installed.json describes exactly the tree it points at.
  expect(await treeDigestOfDir(active!.dir)).toBe(active!.record.tree_digest);
}

describe("an install killed at any stage", () => {
  for (const stage of STAGES) {
    test(`SIGKILL at "${stage}": the previous version still loads and a retry is clean`, async () => {
      const { home, paths, store } = await homeWithV1();
      await killAt(home, stage);

      // The dead child's lock is still there: the retry below has to recover it.
      expect(existsSync(paths.lock)).toBe(true);
      // installed.json is the commit point: only a child that got past it has installed 2.0.0.
      await expectActive(store, stage === "recorded" ? "2.0.0" : "1.0.0");
      const record = JSON.parse(readFileSync(paths.record, "utf8"));
      expect(record.demo.version).toBe(stage === "recorded" ? "2.0.0" : "1.0.0");

      const retried = await store.install(installInput("demo", "2.0.0", await pluginArtifact("demo", "2.0.0")));
      expect(retried).toMatchObject({ version: "2.0.0", previous: "1.0.0" });
      await expectActive(store, "2.0.0");
      expect(readlinkSync(join(paths.installed, "demo", "current"))).toBe("2.0.0");
      expect(existsSync(paths.lock)).toBe(false);
      expect(readdirSync(paths.staging)).toEqual([]);
      const leftovers = Object.keys(snapshot(paths.root)).filter((p) => /\.tmp-|\.replaced|\.lock\./.test(p));
      expect(leftovers).toEqual([]);
      // The rollback target survived too.
      expect(await store.activate("demo", "1.0.0")).toMatchObject({ version: "1.0.0", previous: "2.0.0" });
    });
  }

  test("a crash between the two renames of a same-version reinstall is read through and repaired", async () => {
    const { paths, store } = await homeWithV1();
    const versionDir = join(paths.installed, "demo", "1.0.0");
    // The state the swap leaves if killed right after moving the old copy aside.
    renameSync(versionDir, join(paths.installed, "demo", ".1.0.0.replaced"));
    await expectActive(store, "1.0.0");
    await store.gc();
    expect(existsSync(versionDir)).toBe(true);
    expect(existsSync(join(paths.installed, "demo", ".1.0.0.replaced"))).toBe(false);
    await expectActive(store, "1.0.0");
  });

  test("a `current` link left ahead of installed.json is put back by the next mutating call", async () => {
    const { home, paths, store } = await homeWithV1();
    await killAt(home, "linked");
    expect(readlinkSync(join(paths.installed, "demo", "current"))).toBe("2.0.0");
    const report = await store.gc();
    expect(readlinkSync(join(paths.installed, "demo", "current"))).toBe("1.0.0");
    // 2.0.0 never committed and is not the rollback target: gc removes it with the staging scratch.
    expect(report.removed).toEqual([{ name: "demo", version: "2.0.0" }]);
    expect(report.swept.some((p) => p.startsWith("staging/"))).toBe(true);
    await expectActive(store, "1.0.0");
  });
});
