import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import {
  createSignalCli,
  FIRST_RESTART_WAIT_MS,
  MAX_RESTART_WAIT_MS,
} from "../../../src/channels/signal/signal-cli-process.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { gatedSleep, recordingLog } from "../telegram/_support.ts";

/*
 * signal-cli's restarts, with a child that exits at once: the waits between starts are held by the test (no
 * clock), and the jitter is pinned, so the schedule of the shared backoff rule is read exactly.
 */

const defer = cleanupAfterEach();

function exitingCli(opts: { random?: () => number; missing?: boolean; script?: string; maxLineBytes?: number } = {}) {
  const gate = gatedSleep();
  const log = recordingLog();
  const clock = { t: 1_000_000, stable: false };
  const cli = createSignalCli({
    spec: () =>
      opts.missing
        ? "signal-cli is not installed"
        : { command: "/bin/sh", args: ["-c", opts.script ?? "exit 3"], cwd: tmpdir(), env: { PATH: "/usr/bin:/bin" } },
    onNotification: () => {},
    log,
    // Each look at the clock moves it a minute on once `stable` is set: that child counts as having stayed up.
    now: () => {
      if (clock.stable) clock.t += 61_000;
      return clock.t;
    },
    sleep: gate.sleep,
    random: opts.random ?? (() => 0),
    ...(opts.maxLineBytes ? { maxLineBytes: opts.maxLineBytes } : {}),
  });
  defer(() => cli.stop());
  return { cli, gate, log, clock };
}

/** Lets `n` more restarts happen, each after the wait before it is released. */
async function restarts(gate: ReturnType<typeof gatedSleep>, n: number) {
  for (let i = 0; i < n; i++) {
    const next = gate.waits.length + 1;
    gate.release();
    await gate.waitForSleeps(next);
  }
}

describe("signal-cli restarts", () => {
  test("a child that keeps exiting is restarted after waits that double up to the cap, and stays there", async () => {
    const { cli, gate, log } = exitingCli();
    cli.start();
    await gate.waitForSleeps(1);
    await restarts(gate, 7);
    expect(gate.waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60].map((s) => s * 1000));
    expect(Math.max(...gate.waits)).toBe(MAX_RESTART_WAIT_MS);
    expect(cli.status()).toMatchObject({ state: "restarting", reason: "it exited with code 3", restarts: 8 });
    expect(log.lines.at(-1)).toBe("warn signal-cli: it exited with code 3; starting it again in 60 s");
  });

  test("a child that stayed up a minute starts the count afresh", async () => {
    const { cli, gate, clock } = exitingCli();
    cli.start();
    await gate.waitForSleeps(1);
    await restarts(gate, 3);
    clock.stable = true;
    await restarts(gate, 1);
    clock.stable = false;
    await restarts(gate, 1);
    expect(gate.waits).toEqual([1, 2, 4, 8, 1, 2].map((s) => s * FIRST_RESTART_WAIT_MS));
  });

  test("the waits carry jitter below the doubling ceiling; a missing signal-cli is looked for by the same rule", async () => {
    const { cli, gate } = exitingCli({ missing: true, random: () => 1 });
    cli.start();
    await gate.waitForSleeps(1);
    await restarts(gate, 7);
    // jitter 0.2 at its most: each wait is 80 % of its ceiling.
    expect(gate.waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60].map((s) => s * 800));
    expect(cli.status()).toMatchObject({ state: "missing", reason: "signal-cli is not installed" });
  });

  test("a stdout line past the cap is not read on: the child is ended and started again by the same rule", async () => {
    // 5,000 bytes and no newline, then it would sit there: only the cap ends it.
    const { cli, gate, log } = exitingCli({ script: "printf '%05000d' 0; exec sleep 30", maxLineBytes: 1000 });
    cli.start();
    await gate.waitForSleeps(1);
    expect(log.lines).toContain("warn signal-cli: a line of output exceeded the maximum size of 1000 bytes");
    expect(cli.status()).toMatchObject({ state: "restarting", reason: "it was ended by SIGTERM", restarts: 1 });
    expect(gate.waits).toEqual([FIRST_RESTART_WAIT_MS]);
  });

  test("stop ends a wait at once", async () => {
    const { cli, gate } = exitingCli();
    cli.start();
    await gate.waitForSleeps(1);
    await cli.stop();
    expect(cli.status().state).toBe("stopped");
  });
});
