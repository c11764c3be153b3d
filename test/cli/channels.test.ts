import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createJobStore } from "../../src/jobs/job-store.ts";
import { openDatabase } from "../../src/memory/db.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeTelegram, textMessage } from "../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";
import { draft } from "../jobs/_fixture.ts";

/*
 * The operations side of chat channels, through the compiled binary: `fermix channels status`, doctor's channel
 * row, `fermix setup --channel telegram`, a job delivered to a chat, and a streamed reply — a real daemon, the fake
 * Bot API and a fake model on loopback.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-channels-cli-0123456789";
const OWNER = 4242;

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return { h, env: { FERMIX_HOME: h.home, HOME: h.userHome } as Record<string, string> };
}

/** A daemon with [fermix_channels.telegram] on the fake Bot API, running and long-polling. */
async function daemonWithTelegram(extra = "") {
  const { h, env } = home();
  const telegram = await startFakeTelegram();
  defer(() => telegram.close());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  h.writeConfig(
    [
      "[fermix_core.tools.tool_search]",
      "enabled = false",
      "",
      "[fermix_channels.telegram]",
      "enabled = true",
      `owner_user_id = ${OWNER}`,
      `bot_token = "${telegram.token}"`,
      `api_base_url = "${telegram.baseUrl}"`,
      extra,
    ].join("\n"),
  );
  const full = { ...env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  const daemon = await startFermixDaemon(full);
  defer(() => daemon.stop());
  // The channel is running once it holds its first long poll.
  await telegram.waitForCall("getUpdates", (c) => Number(c.params.timeout) > 0);
  return { h, env: full, telegram, llm, daemon };
}

describe("fermix channels status", () => {
  test("no daemon: nothing is connected; it says what config.toml enables, exit 3", async () => {
    const { h, env } = home();
    const none = await runFermix(["channels", "status"], { env });
    expect(none).toEqual({
      code: 3,
      stdout: "",
      stderr:
        "fermix: the daemon is not running, so no channel is connected; config.toml enables no channel (fermix setup --channel telegram adds one)\n",
    });
    h.writeConfig('[fermix_channels.telegram]\nenabled = true\nowner_user_id = 1\nbot_token = "1:x"\n');
    const enabled = await runFermix(["channels"], { env });
    expect(enabled.code).toBe(3);
    expect(enabled.stderr).toBe(
      "fermix: the daemon is not running, so no channel is connected; config.toml enables telegram, and it starts with the daemon: fermix start\n",
    );
    const json = await runFermix(["channels", "status", "--json"], { env });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toEqual({
      schema_version: 1,
      ok: false,
      error: { code: "not_running", sentence: enabled.stderr.slice("fermix: ".length, -1) },
    });
  });

  test("a daemon without channels: none enabled, exit 0", async () => {
    const { env } = home();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    expect(await runFermix(["channels", "status"], { env })).toEqual({
      code: 0,
      stdout: "no chat channel is enabled; fermix setup --channel telegram adds one\n",
      stderr: "",
    });
  });

  test("a running telegram channel: enabled, running, connected, its last update", async () => {
    const { env, telegram } = await daemonWithTelegram();
    const text = await runFermix(["channels", "status"], { env });
    expect(text.code).toBe(0);
    expect(text.stderr).toBe("");
    expect(text.stdout).toMatch(
      /^telegram\tenabled\trunning\tconnected\t(last update \S+ \(\d+s ago\)|no update yet)\n$/,
    );
    const json = await runFermix(["channels", "status", "--json"], { env });
    const body = JSON.parse(json.stdout);
    expect(body.result.channels).toEqual([
      {
        name: "telegram",
        enabled: true,
        state: "running",
        connected: true,
        last_update_at: expect.any(String),
        degraded: null,
        reason: null,
      },
    ]);
    expect(json.stdout + text.stdout).not.toContain(telegram.token);
  });
});

describe("fermix doctor with a channel", () => {
  test("a row with the bot getMe names and the daemon state", async () => {
    const { env, telegram } = await daemonWithTelegram();
    const r = await runFermix(["doctor", "--json"], { env });
    const rows = JSON.parse(r.stdout).result.rows as Array<{ id: string; status: string; detail: string }>;
    const row = rows.find((x) => x.id === "channels.telegram")!;
    expect(row.status).toBe("ok");
    expect(row.detail).toStartWith("telegram: bot @fermix_test_bot (id 123456789); running in the daemon, connected");
    expect(r.stdout).not.toContain(telegram.token);
  });

  test("a revoked token: fail, with what to do", async () => {
    const { h, env } = home();
    const telegram = await startFakeTelegram();
    defer(() => telegram.close());
    h.writeConfig(
      `[fermix_channels.telegram]\nenabled = true\nowner_user_id = 1\nbot_token = "111:AAwrongTokenForTheFakeBotApi_xyz"\napi_base_url = "${telegram.baseUrl}"\n`,
    );
    const r = await runFermix(["doctor"], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("fail channels   telegram: Telegram refused the bot token (401 Unauthorized)");
    expect(r.stdout).toContain("fix: the token was revoked or mistyped");
    expect(r.stdout).not.toContain("AAwrongTokenForTheFakeBotApi_xyz");
  });
});

describe("fermix setup --channel telegram", () => {
  test("a piped token is tested with getMe, stored, and the channel enabled; nothing on argv", async () => {
    const { h, env } = home();
    const telegram = await startFakeTelegram();
    defer(() => telegram.close());
    h.writeConfig(
      `[fermix_core]\nsecret_store = "file"\n\n[fermix_channels.telegram]\napi_base_url = "${telegram.baseUrl}"\n`,
    );
    const r = await runFermix(
      ["setup", "--channel", "telegram", "--owner-user-id", String(OWNER), "--bot-token-stdin", "--yes"],
      {
        env,
        stdin: `${telegram.token}\n`,
      },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("ok: bot @fermix_test_bot (id 123456789)\n");
    expect(r.stdout).not.toContain(telegram.token);
    expect(telegram.callsOf("getMe")).toHaveLength(1);
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain(
      `[fermix_channels.telegram]\napi_base_url = "${telegram.baseUrl}"\nenabled = true\nowner_user_id = "${OWNER}"\nbot_token = "@keyring"\n`,
    );
    expect(readFileSync(join(h.home, "secrets", "TELEGRAM_BOT_TOKEN"), "utf8")).toBe(telegram.token);

    const refused = await runFermix(["setup", "--channel", "telegram", "--owner-user-id", "1", "--bot-token-stdin"], {
      env,
      stdin: "999:AAnotTheRightTokenForThisFakeBot_123",
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("fermix: Telegram refused the bot token");
    expect(refused.stderr).not.toContain("AAnotTheRightTokenForThisFakeBot_123");
  });
});

describe("a channel at work in the daemon", () => {
  test("draft streaming: one Telegram message, edited, sealed to the answer", async () => {
    const { telegram, llm } = await daemonWithTelegram('streaming = "draft"');
    const answer = "Here is a streamed answer, long enough to open a draft and be sealed at the end.";
    llm.enqueue({ kind: "text", text: answer, chunks: answer.match(/.{1,10}/g)! });
    telegram.pushUpdate(textMessage({ fromId: OWNER, chatId: OWNER, text: "stream please" }));
    // Calls are seen as they arrive (the fake applies an edit before it answers): the seal is the edit to the answer.
    await telegram.waitForCall("editMessageText", (c) => c.params.text === answer);
    const sends = telegram.callsOf("sendMessage").filter((c) => String(c.params.chat_id) === String(OWNER));
    expect(sends).toHaveLength(1);
    expect([...telegram.sent.values()].filter((m) => m.chatId === String(OWNER)).map((m) => m.text)).toEqual([answer]);
  });

  test("draft streaming of a long answer: the draft holds one Telegram card, the rest follows, nothing lost", async () => {
    const { telegram, llm } = await daemonWithTelegram('streaming = "draft"');
    const answer = Array.from({ length: 6 }, (_, i) => `Part ${i}: ${"words and more words ".repeat(25).trim()}.`).join(
      "\n\n",
    );
    llm.enqueue({ kind: "text", text: answer, chunks: answer.match(/[\s\S]{1,200}/g)! });
    telegram.pushUpdate(textMessage({ fromId: OWNER, chatId: OWNER, text: "a long one" }));
    await telegram.waitForCall("sendMessage", (c) => String(c.params.text).includes("Part 5:"));
    const texts = [...telegram.sent.values()].filter((m) => m.chatId === String(OWNER)).map((m) => m.text);
    expect(texts.length).toBeGreaterThan(1);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(1400);
    expect(texts.join("\n\n")).toBe(answer);
  });

  test("a job's channel delivery sends its answer to telegram:<chat_id>; the run records it", async () => {
    const { h, env, telegram, llm } = await daemonWithTelegram();
    // The owner's chat exists once the owner has written to the bot.
    llm.enqueue({ kind: "text", text: "hello back" });
    telegram.pushUpdate(textMessage({ fromId: OWNER, chatId: OWNER, text: "hello" }));
    await telegram.waitForCall("sendMessage", (c) => c.params.text === "hello back");
    const jobId = seedJob(h, `${OWNER}`);
    llm.enqueue({ kind: "text", text: "Your scheduled digest: all quiet." });
    const started = await runFermix(["jobs", "run", jobId], { env });
    expect(started.code).toBe(0);
    await telegram.waitForCall("sendMessage", (c) => c.params.text === "Your scheduled digest: all quiet.");
    const runs = await waitForDelivery(env, jobId);
    expect(runs[0]).toMatchObject({ status: "ok", delivery_status: "sent" });
  });
});

/** A job delivering to a telegram chat, written into memory.db as the job tools write it (never due by itself). */
function seedJob(h: TempHome, chat: string): string {
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(h.home, "memory.db"));
  const store = createJobStore(db, Date.now);
  const job = store.create(
    draft({ name: "digest", deliveryMode: "channel", deliveryTarget: { platform: "telegram", chat_id: chat } }),
    { nextRunAt: Date.parse("2099-01-01T08:00:00Z"), trust: "operator", createdIn: { channel: "cli", chat: "s" } },
  );
  db.close();
  return job.id;
}

/** The job's runs once the newest has left `pending` delivery (the send follows the answer). */
async function waitForDelivery(env: Record<string, string>, jobId: string) {
  for (;;) {
    const r = await runFermix(["jobs", "runs", jobId, "--json"], { env });
    const runs = JSON.parse(r.stdout).result.runs;
    if (runs[0] && runs[0].delivery_status !== "pending" && runs[0].status !== "running") return runs;
  }
}
