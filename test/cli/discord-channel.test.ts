import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createJobStore } from "../../src/jobs/job-store.ts";
import { openDatabase } from "../../src/memory/db.ts";
import { type FakeDiscord, type FakeUser, startFakeDiscord } from "../fake/discord-api.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";
import { draft } from "../jobs/_fixture.ts";

/*
 * The operations side of the Discord channel through the compiled binary: the DISCORD_* overlays, doctor's row
 * (with and without a daemon), and jobs delivered to discord:<channel id>.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-discord-ops-0123456789";
const OWNER: FakeUser = { id: "111111111111111111", username: "owner" };
const GUEST: FakeUser = { id: "222222222222222222", username: "guest" };
const OWNER_DM = "711111111111111111";
const GUILD = "900000000000000001";
const GENERAL = "910000000000000001";
const SEND = "POST /channels/:channel/messages";

type Row = { id: string; status: string; detail: string; fix?: string };
const doctorRow = async (env: Record<string, string>) => {
  const r = await runFermix(["doctor", "--json"], { env });
  const rows = JSON.parse(r.stdout).result.rows as Row[];
  return { code: r.code, row: rows.find((row) => row.id === "channels.discord")!, stdout: r.stdout };
};

/** A home whose discord table has no token and no allow-list: both come from the environment. */
async function world(extraEnv: Record<string, string> = {}) {
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
      'streaming = "off"',
      "",
    ].join("\n"),
  );
  const env: Record<string, string> = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.baseUrl,
    DISCORD_BOT_TOKEN: dc.token,
    DISCORD_ALLOWED_USER_IDS: GUEST.id,
    ...extraEnv,
  };
  return { h, llm, dc, env };
}

async function withDaemon(w: Awaited<ReturnType<typeof world>>) {
  const daemon = await startFermixDaemon(w.env);
  defer(async () => {
    await daemon.stop();
    expect(daemon.stderr()).not.toContain(w.dc.token);
  });
  await w.dc.waitForSession();
  return daemon;
}

function seedJob(h: TempHome, chat: string): string {
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(h.home, "memory.db"));
  const store = createJobStore(db, Date.now);
  const job = store.create(
    draft({ name: `digest-${chat}`, deliveryMode: "channel", deliveryTarget: { platform: "discord", chat_id: chat } }),
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

function nextSend(dc: FakeDiscord, channel: string) {
  const mark = dc.calls.length;
  return dc.waitForCall(SEND, (c) => dc.calls.indexOf(c) >= mark && c.params.channel === channel);
}

describe("the DISCORD_* environment variables and doctor", () => {
  test("the token and the guest come from the environment; doctor shows the bot and the live session", async () => {
    const w = await world();
    await withDaemon(w);
    w.llm.setDefault({ kind: "text", text: "hello guest" });
    const reply = nextSend(w.dc, GENERAL);
    w.dc.userMessage({
      channelId: GENERAL,
      guildId: GUILD,
      author: GUEST,
      content: `<@${w.dc.bot.id}> hi`,
      mentionsBot: true,
    });
    expect((await reply).body.content).toBe("hello guest");
    const { row, stdout } = await doctorRow(w.env);
    expect(row.status).toBe("ok");
    expect(row.detail).toStartWith(
      `discord: bot fermix-test (id ${w.dc.bot.id}); running in the daemon, connected, last update `,
    );
    expect(stdout).not.toContain(w.dc.token);
  });

  test("without a daemon doctor checks the token live; a wrong DISCORD_BOT_USER_ID or token fails with the fix", async () => {
    const w = await world();
    const ok = await doctorRow(w.env);
    expect(ok.row).toMatchObject({
      status: "ok",
      detail: `discord: bot fermix-test (id ${w.dc.bot.id}); the daemon is not running`,
    });
    const wrongBot = await doctorRow({ ...w.env, DISCORD_BOT_USER_ID: "999999999999999999" });
    expect(wrongBot.row.status).toBe("fail");
    expect(wrongBot.row.detail).toStartWith(
      `discord: bot_user_id is 999999999999999999, but the token is bot fermix-test (id ${w.dc.bot.id})`,
    );
    expect(wrongBot.row.fix).toContain(`bot_user_id = "${w.dc.bot.id}"`);
    const revoked = "MTExMTExMTExMTExMTExMTEx.Grevok.revoked_token_revoked_token_revoked";
    const refused = await doctorRow({ ...w.env, DISCORD_BOT_TOKEN: revoked });
    expect(refused.code).toBe(1);
    expect(refused.row.status).toBe("fail");
    expect(refused.row.detail).toStartWith("discord: Discord refused the bot token (HTTP 401)");
    expect(refused.row.fix).toContain("fermix setup --channel discord");
    expect(refused.stdout).not.toContain(revoked);
  });
});

describe("jobs deliver to discord:<channel id>", () => {
  test("a known channel gets the answer; an unknown one records Discord's reason on the run", async () => {
    const w = await world();
    await withDaemon(w);
    w.llm.setDefault({ kind: "text", text: "noted" });
    const hello = nextSend(w.dc, OWNER_DM);
    w.dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "hello" });
    await hello;

    const known = seedJob(w.h, OWNER_DM);
    w.llm.enqueue({ kind: "text", text: "Your scheduled digest: all quiet." });
    const digest = nextSend(w.dc, OWNER_DM);
    expect((await runFermix(["jobs", "run", known], { env: w.env })).code).toBe(0);
    const sent = await digest;
    expect(sent.body).toEqual({
      content: "Your scheduled digest: all quiet.",
      allowed_mentions: { parse: [], replied_user: false },
    });
    expect((await waitForDelivery(w.env, known))[0]).toMatchObject({ status: "ok", delivery_status: "sent" });

    const unknown = seedJob(w.h, "555555555555555555");
    w.llm.enqueue({ kind: "text", text: "nobody there" });
    expect((await runFermix(["jobs", "run", unknown], { env: w.env })).code).toBe(0);
    const [run] = await waitForDelivery(w.env, unknown);
    expect(run).toMatchObject({ status: "ok", delivery_status: "failed" });
    expect(run.delivery_error).toContain("Unknown Channel");
  });
});
