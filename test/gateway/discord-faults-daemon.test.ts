import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeUser, startFakeDiscord } from "../fake/discord-api.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * Issue 26 on the compiled daemon with the fake Discord: a malformed gateway frame is a degraded channel and a
 * reconnect, never the daemon's end; and SIGTERM ends the daemon within 10 s whatever a channel and a turn are doing.
 */

const KEY = "sk-test-discord-faults-0123456789";
const OWNER: FakeUser = { id: "111111111111111111", username: "owner" };
const OWNER_DM = "711111111111111111";
/** The bound on a stop, from the signal until the process is gone. */
const STOP_BOUND_MS = 10_000;
const defer = cleanupAfterEach();

async function setup(
  beforeStart?: (dc: Awaited<ReturnType<typeof startFakeDiscord>>) => void,
  extraEnv: Record<string, string> = {},
) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const dc = await startFakeDiscord();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => dc.close());
  h.writeConfig(
    [
      "[fermix_channels.discord]",
      "enabled = true",
      `owner_user_id = "${OWNER.id}"`,
      `api_base_url = "${dc.baseUrl}"`,
      `bot_token = "${dc.token}"`,
      'streaming = "off"',
      "",
    ].join("\n"),
  );
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.baseUrl,
    ...extraEnv,
  };
  beforeStart?.(dc);
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  return { h, llm, dc, env, daemon };
}

async function discordStatus(env: Record<string, string>) {
  const out = await runFermix(["channels", "status", "--json"], { env });
  return JSON.parse(out.stdout).result.channels.find((c: { name: string }) => c.name === "discord");
}

describe("Discord's gateway misbehaving, through the compiled daemon", () => {
  test('READY with "d": null: the daemon answers on, the channel shows degraded, and it reconnects with back-off', async () => {
    const { llm, dc, env, daemon } = await setup((fake) => fake.gateway.malformReady(null));
    llm.setDefault({ kind: "text", text: "the daemon is up" });
    const [first] = await dc.gateway.waitForMalformed(1);
    // The daemon ended that connection itself once it had dropped the frame.
    await dc.gateway.waitForClose((c) => c.connection === first!.connection);

    const ask = await runFermix(["ask", "still there?"], { env });
    expect(ask.stdout.trim()).toBe("the daemon is up");
    // Every Identify gets the same broken READY for now, so the channel stays degraded while the test looks.
    const degraded = await discordStatus(env);
    expect(degraded).toMatchObject({ state: "running", connected: false });
    expect(degraded.degraded).toContain("Discord's gateway sent a READY without its session (d: null)");
    const status = JSON.parse((await runFermix(["status", "--json"], { env })).stdout).result;
    expect(status.subsystems.find((p: { name: string }) => p.name === "channels")).toMatchObject({
      state: "degraded",
      detail: expect.stringContaining("discord: Discord's gateway sent a READY without its session"),
    });
    // Nothing went unhandled: the frame never reached the library's dereference.
    expect(status.daemon_errors).toBe(0);

    const [, second] = await dc.gateway.waitForMalformed(2);
    dc.gateway.malformReady(undefined);
    await dc.waitForSession();
    const identifies = dc.gateway.frames.filter((f) => f.op === 2).map((f) => f.at);
    // Back-off: about a second before the second try, twice that before the third (not the library's fixed 500 ms).
    expect(identifies[1]! - first!.at).toBeGreaterThanOrEqual(750);
    expect(identifies[2]! - second!.at).toBeGreaterThanOrEqual(1550);

    const reply = dc.waitForCall("POST /channels/:channel/messages", (c) => c.params.channel === OWNER_DM);
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "hello after the reconnect" });
    expect((await reply).body.content).toBe("the daemon is up");
    const healthy = await discordStatus(env);
    expect(healthy).toMatchObject({ state: "running", connected: true, degraded: null });
    expect(daemon.stderr()).not.toContain("TypeError");
  });

  test("SIGTERM with a turn stuck in a provider that never answers and Discord connected: the process is gone within 10 s", async () => {
    const { h, llm, dc, env, daemon } = await setup();
    await dc.waitForSession();
    llm.setDefault({ kind: "hang" });
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "this turn will hang" });
    // And one over the socket too, its CLI left waiting on the daemon.
    const cliAsk = runFermix(["ask", "so will this one"], { env });
    await llm.waitForRequests(2);

    const signalled = performance.now();
    process.kill(daemon.pid, "SIGTERM");
    const code = await daemon.exited;
    const tookMs = performance.now() - signalled;
    expect(tookMs).toBeLessThan(STOP_BOUND_MS);
    // Really gone: no process answers to its pid any more.
    expect(() => process.kill(daemon.pid, 0)).toThrow();
    // A stop that was asked for exits 0 (see cli/run.ts), and leaves no socket behind.
    expect(code).toBe(0);
    expect(existsSync(join(h.home, "daemon.sock"))).toBe(false);
    const ask = await cliAsk;
    expect(ask.code).not.toBe(0);
    console.log(`SIGTERM with a hung turn → gone in ${Math.round(tookMs)} ms`);
  });

  test("SIGTERM when a part never finishes stopping (test-only hang), a turn hung and Discord connected: cut at the deadline, gone within 10 s", async () => {
    const { h, llm, dc, env, daemon } = await setup(undefined, { FERMIX_TEST_FAULT: "jobs:hang-stop" });
    await dc.waitForSession();
    llm.setDefault({ kind: "hang" });
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "this turn will hang" });
    await llm.waitForRequests(1);
    const signalled = performance.now();
    process.kill(daemon.pid, "SIGTERM");
    const code = await daemon.exited;
    const tookMs = performance.now() - signalled;
    expect(tookMs).toBeLessThan(STOP_BOUND_MS);
    expect(() => process.kill(daemon.pid, 0)).toThrow();
    expect(code).toBe(0);
    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    // The deadline is what ended it: the parts after jobs in the stop order never got their turn.
    expect(log).toContain("the daemon's parts did not stop within 8 s; exiting anyway");
    expect(existsSync(join(h.home, "daemon.sock"))).toBe(false);
    expect((await runFermix(["status"], { env })).code).toBe(3);
    console.log(`SIGTERM with a part that never stops → gone in ${Math.round(tookMs)} ms`);
  });

  test("SIGTERM while Discord has not answered Identify (what once left the daemon running): gone within 10 s", async () => {
    const { h, dc, daemon } = await setup((fake) => fake.gateway.silenceReady(true));
    await dc.gateway.waitForFrame((f) => f.op === 2);
    const signalled = performance.now();
    process.kill(daemon.pid, "SIGTERM");
    const code = await daemon.exited;
    const tookMs = performance.now() - signalled;
    expect(tookMs).toBeLessThan(STOP_BOUND_MS);
    expect(() => process.kill(daemon.pid, 0)).toThrow();
    expect(code).toBe(0);
    // Stopped for real, not cut off at the deadline.
    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    expect(log).toContain("[daemon] stopped");
    expect(log).not.toContain("did not stop within");
    console.log(`SIGTERM while connecting → gone in ${Math.round(tookMs)} ms`);
  });
});
