import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * The daemon's fault policy on the compiled binary: FERMIX_TEST_FAULT (test only) rejects promises inside the
 * running jobs part with nothing to catch them. Up to 20 in a minute the daemon keeps serving and says so (status,
 * the trace, the log, the part degraded); the 21st ends it with a non-zero code for the service manager.
 */

const KEY = "sk-test-faults-0123456789abcdef";
const defer = cleanupAfterEach();

async function setup(fault: string) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.baseUrl,
    FERMIX_TEST_FAULT: fault,
  };
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  return { h, llm, env, daemon };
}

/** `fermix status --json` until `done` says so; the deadline is a safety net, each try waits on the CLI's answer. */
async function statusUntil(env: Record<string, string>, done: (status: any) => boolean): Promise<any> {
  const deadline = Date.now() + 15_000;
  while (true) {
    const out = await runFermix(["status", "--json"], { env });
    const status = JSON.parse(out.stdout).result;
    if (done(status) || Date.now() > deadline) return status;
  }
}

function traceLines(home: string, type: string): any[] {
  const root = join(home, "traces");
  return readdirSync(root).flatMap((day) => {
    const file = join(root, day, `${type}.jsonl`);
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
  });
}

describe("a fault nothing handles does not end the daemon", () => {
  test("20 unhandled rejections inside the jobs part: asks are still answered; status, trace, log and doctor's row say so", async () => {
    const { h, llm, env, daemon } = await setup("jobs:20");
    llm.setDefault({ kind: "text", text: "still answering" });
    const status = await statusUntil(env, (s) => s.daemon_errors >= 20);
    expect(status.daemon_errors).toBe(20);
    const jobs = status.subsystems.find((p: { name: string }) => p.name === "jobs");
    expect(jobs.state).toBe("degraded");
    expect(jobs.detail).toBe(
      "20 unexpected errors since the daemon started, the last: FermixError: test fault 20 of 20 in jobs (FERMIX_TEST_FAULT)",
    );

    const ask = await runFermix(["ask", "are you there?"], { env });
    expect(ask.stdout.trim()).toBe("still answering");
    expect(ask.code).toBe(0);

    const human = await runFermix(["status"], { env });
    expect(human.stdout).toContain("daemon: 20 unexpected errors since it started — fermix logs --level error\n");
    expect(human.stdout).toContain("jobs: degraded — 20 unexpected errors since the daemon started");

    const traced = traceLines(h.home, "agent_event").filter((l) => l.event === "daemon_error");
    expect(traced).toHaveLength(20);
    expect(traced[0]).toMatchObject({
      type: "agent_event",
      event: "daemon_error",
      source: "unhandledRejection",
      part: "jobs",
      error: "FermixError: test fault 1 of 20 in jobs (FERMIX_TEST_FAULT)",
      faults: 1,
    });
    expect(traced.at(-1)).toMatchObject({ faults: 20, within_window: 20 });

    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    expect(log).toContain("ERROR [daemon] unexpected error (unhandledRejection in jobs); fermix keeps running: ");
    expect(log).toContain("test fault 20 of 20 in jobs (FERMIX_TEST_FAULT)");
    expect(log).not.toContain("unexpected errors within 60 s");

    const doctor = await runFermix(["doctor", "--json"], { env });
    const row = JSON.parse(doctor.stdout).result.rows.find((r: { id: string }) => r.id === "daemon");
    expect(row).toMatchObject({
      status: "warn",
      detail: expect.stringContaining(
        "but 20 unexpected errors since it started (each logged, and traced as daemon_error)",
      ),
    });

    expect(await daemon.stop()).toBe(0);
  });

  test("more than 20 within a minute: the daemon stops and exits non-zero, for its service manager to restart it", async () => {
    const { h, daemon } = await setup("jobs:21");
    const code = await daemon.exited;
    expect(code).toBe(1);
    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    expect(log).toContain(
      "21 unexpected errors within 60 s: fermix stops and exits with an error so that its service manager starts it afresh",
    );
    // It stopped the way any stop does: the socket is gone and the parts said they stopped.
    expect(log).toContain("[daemon] stopped");
    expect(existsSync(join(h.home, "daemon.sock"))).toBe(false);
  });

  test("a FERMIX_TEST_FAULT that names no part is refused before the daemon serves, rather than raising nothing", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const started = startFermixDaemon({ FERMIX_HOME: h.home, HOME: h.userHome, FERMIX_TEST_FAULT: "nowhere:1" });
    await expect(started).rejects.toThrow(
      "FERMIX_TEST_FAULT=nowhere:1 is not <part>:<count> or <part>:hang-stop with a part of trace-export,",
    );
  });
});
