import { describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-openai-0123456789abcdef";
const defer = cleanupAfterEach();

async function withDaemon() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  const daemonEnv = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  const daemon = await startFermixDaemon(daemonEnv);
  defer(() => daemon.stop());
  // The CLI side gets no provider keys: whatever answers came through the daemon.
  const cliEnv = { FERMIX_HOME: h.home, HOME: h.userHome };
  return { h, fake, daemon, cliEnv };
}

describe("fermix run in the background", () => {
  test("status shows pid, version and uptime; the socket is 0600; stop ends it", async () => {
    const { h, daemon, cliEnv } = await withDaemon();
    expect(statSync(`${h.home}/daemon.sock`).mode & 0o777).toBe(0o600);

    const status = await runFermix(["status"], { env: cliEnv });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(`^fermix: running \\(pid ${daemon.pid}, version [\\w.-]+, up \\d+s\\)\\n`),
    );
    expect(status.stdout).toContain("providers: openai");

    const json = JSON.parse((await runFermix(["status", "--json"], { env: cliEnv })).stdout);
    expect(json).toMatchObject({
      schema_version: 1,
      ok: true,
      result: { pid: daemon.pid, primary_provider: "openai" },
    });
    expect(json.result.uptime_ms).toBeGreaterThanOrEqual(0);

    const health = await runFermix(["health", "--json"], { env: cliEnv });
    expect(JSON.parse(health.stdout)).toMatchObject({ ok: true, result: { ok: true, pid: daemon.pid } });

    const stop = await runFermix(["stop"], { env: cliEnv });
    expect(stop).toEqual({ code: 0, stdout: `fermix: stopped (pid ${daemon.pid})\n`, stderr: "" });
    expect(await daemon.stop()).toBe(0);
    expect(existsSync(`${h.home}/daemon.sock`)).toBe(false);

    const after = await runFermix(["status"], { env: cliEnv });
    expect(after).toEqual({ code: 3, stdout: "", stderr: "fermix: not running\n" });
    const afterJson = await runFermix(["status", "--json"], { env: cliEnv });
    expect(afterJson.code).toBe(3);
    expect(JSON.parse(afterJson.stdout)).toMatchObject({ ok: false, error: { code: "not_running" } });
  });

  test("asks go through the daemon: one session in order, different sessions overlap", async () => {
    const { fake, cliEnv } = await withDaemon();
    fake.enqueue({ kind: "delay", ms: 400, reply: { kind: "text", text: "first" } }, { kind: "text", text: "second" });
    const first = runFermix(["ask", "-s", "one", "question 1"], { env: cliEnv });
    await fake.waitForRequests(1);
    const second = runFermix(["ask", "-s", "one", "question 2"], { env: cliEnv });
    const [a, b] = await Promise.all([first, second]);
    expect([a.stdout, b.stdout]).toEqual(["first\n", "second\n"]);
    expect(fake.requests[1]!.receivedAt - fake.requests[0]!.receivedAt).toBeGreaterThanOrEqual(390);

    fake.enqueue(
      { kind: "delay", ms: 400, reply: { kind: "text", text: "x" } },
      { kind: "delay", ms: 400, reply: { kind: "text", text: "y" } },
    );
    const both = Promise.all([
      runFermix(["ask", "-s", "sx", "x"], { env: cliEnv }),
      runFermix(["ask", "--daemon", "-s", "sy", "y"], { env: cliEnv }),
    ]);
    await fake.waitForRequests(4);
    expect(Math.abs(fake.requests[3]!.receivedAt - fake.requests[2]!.receivedAt)).toBeLessThan(390);
    const [x, y] = await both;
    expect(x.code + y.code).toBe(0);
  });

  test("a second daemon is refused while the first lives; SIGTERM stops cleanly", async () => {
    const { h, daemon, cliEnv } = await withDaemon();
    const second = await runFermix(["run"], { env: cliEnv });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`fermix: fermix is already running (pid ${daemon.pid})`);
    expect(await daemon.stop()).toBe(0);
    expect(existsSync(`${h.home}/daemon.sock`)).toBe(false);
    expect(existsSync(`${h.home}/daemon.lock`)).toBe(false);
  });
});

describe("the CLI's shape", () => {
  test("--version, help, no arguments and an unknown command", async () => {
    const version = await runFermix(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
    const help = await runFermix(["help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: fermix <command>");
    const none = await runFermix([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Usage: fermix <command>");
    const unknown = await runFermix(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toStartWith("fermix: unknown command: frobnicate\n");
    const askHelp = await runFermix(["ask", "--help"]);
    expect(askHelp.stdout).toContain("--no-daemon");
  });
});
