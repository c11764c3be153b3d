import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureServiceUnit, unitDrift } from "../../src/service/drift.ts";
import { lineDiff } from "../../src/service/line-diff.ts";
import type { ServiceManager } from "../../src/service/manager-contract.ts";
import type { ServiceTarget } from "../../src/service/service-target.ts";
import { planService } from "../../src/service/target.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "fx-drift-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An in-memory manager that records what it was asked to do. */
function recordingManager(target: ServiceTarget): ServiceManager & { calls: string[] } {
  const calls: string[] = [];
  const op = (name: string) => async () => {
    calls.push(name);
  };
  return {
    target,
    calls,
    reload: op("reload"),
    enable: op("enable"),
    disable: op("disable"),
    start: op("start"),
    stop: op("stop"),
    restart: op("restart"),
    state: async () => ({ active: true, state: "active" }),
  };
}

describe("lineDiff", () => {
  test("changed lines only, removals before their replacements, in file order", () => {
    expect(lineDiff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n")).toEqual(["- b", "+ B", "+ e"]);
    expect(lineDiff("same\n", "same\n")).toEqual([]);
  });

  test("a long diff is cut with a count", () => {
    const before = Array.from({ length: 30 }, (_, i) => `old ${i}`).join("\n");
    const after = Array.from({ length: 30 }, (_, i) => `new ${i}`).join("\n");
    const diff = lineDiff(before, after, 4);
    expect(diff).toEqual(["- old 0", "- old 1", "- old 2", "- old 3", "… 56 more changed lines"]);
  });
});

describe("unitDrift and ensureServiceUnit", () => {
  const env = (home: string) => ({ HOME: home, FERMIX_HOME: join(home, ".fermix") });

  test("missing, then written (0644, parent dirs created), reloaded and enabled", async () => {
    const home = tempDir();
    const plan = planService({ scope: "user", env: env(home), binary: "/usr/local/bin/fermix", platform: "linux" });
    expect(unitDrift(plan.target.path, plan.content)).toEqual({ state: "missing" });
    const manager = recordingManager(plan.target);
    const result = await ensureServiceUnit({ plan, manager });
    expect(result).toEqual({ action: "created", path: plan.target.path, diff: [], steps: ["reload", "enable"] });
    expect(manager.calls).toEqual(["reload", "enable"]);
    expect(readFileSync(plan.target.path, "utf8")).toBe(plan.content);
    expect(statSync(plan.target.path).mode & 0o777).toBe(0o644);
    expect(unitDrift(plan.target.path, plan.content)).toEqual({ state: "same" });
  });

  test("an up-to-date unit is left alone; enable still makes sure it runs", async () => {
    const home = tempDir();
    const plan = planService({ scope: "user", env: env(home), binary: "/usr/local/bin/fermix", platform: "linux" });
    await ensureServiceUnit({ plan, manager: recordingManager(plan.target) });
    const mtime = statSync(plan.target.path).mtimeMs;
    const manager = recordingManager(plan.target);
    expect(await ensureServiceUnit({ plan, manager })).toMatchObject({ action: "unchanged", steps: ["enable"] });
    expect(manager.calls).toEqual(["enable"]);
    expect(statSync(plan.target.path).mtimeMs).toBe(mtime);
    const quiet = recordingManager(plan.target);
    await ensureServiceUnit({ plan, manager: quiet, enable: false });
    expect(quiet.calls).toEqual([]);
  });

  test("a drifted unit (the binary moved: a new pinned PATH) is rewritten, reloaded and restarted", async () => {
    const home = tempDir();
    const old = planService({ scope: "user", env: env(home), binary: "/usr/local/bin/fermix", platform: "linux" });
    await ensureServiceUnit({ plan: old, manager: recordingManager(old.target) });
    const plan = planService({ scope: "user", env: env(home), binary: "/opt/homebrew/bin/fermix", platform: "linux" });
    const drift = unitDrift(plan.target.path, plan.content);
    expect(drift.state).toBe("drifted");

    const manager = recordingManager(plan.target);
    const result = await ensureServiceUnit({ plan, manager });
    expect(result.action).toBe("rewritten");
    expect(result.steps).toEqual(["reload", "restart", "enable"]);
    expect(manager.calls).toEqual(["reload", "restart", "enable"]);
    expect(result.diff).toEqual([
      "- ExecStart=/usr/local/bin/fermix run",
      "+ ExecStart=/opt/homebrew/bin/fermix run",
      "- Environment=PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/homebrew/bin:/home/linuxbrew/.linuxbrew/bin",
      "+ Environment=PATH=/opt/homebrew/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/home/linuxbrew/.linuxbrew/bin",
    ]);
    expect(readFileSync(plan.target.path, "utf8")).toBe(plan.content);
  });

  test("a hand-edited unit counts as drifted; without enable it is only rewritten and reloaded", async () => {
    const home = tempDir();
    const plan = planService({ scope: "user", env: env(home), binary: "/usr/local/bin/fermix", platform: "linux" });
    await ensureServiceUnit({ plan, manager: recordingManager(plan.target) });
    writeFileSync(plan.target.path, plan.content.replace("RestartSec=5", "RestartSec=30"));
    expect(unitDrift(plan.target.path, plan.content)).toEqual({
      state: "drifted",
      diff: ["- RestartSec=30", "+ RestartSec=5"],
    });
    const manager = recordingManager(plan.target);
    expect(await ensureServiceUnit({ plan, manager, enable: false })).toMatchObject({
      action: "rewritten",
      steps: ["reload"],
    });
    expect(manager.calls).toEqual(["reload"]);
  });

  test("launchd: the log directory launchd writes into exists before the job is loaded", async () => {
    const home = tempDir();
    const plan = planService({ scope: "user", env: env(home), binary: "/usr/local/bin/fermix", platform: "darwin" });
    await ensureServiceUnit({ plan, manager: recordingManager(plan.target) });
    expect(statSync(join(home, ".fermix", "logs")).isDirectory()).toBe(true);
  });
});
