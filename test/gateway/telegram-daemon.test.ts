import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import {
  CONFLICT_DESCRIPTION,
  callbackQuery,
  type FakeTelegram,
  startFakeTelegram,
  type TelegramCall,
  textMessage,
} from "../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * The Telegram channel end to end: the compiled daemon polls the fake Bot API (api_base_url) and answers with a
 * fake model. Everything waits on a call the fakes record; nothing sleeps.
 */

const KEY = "sk-test-telegram-0123456789abcdef";
const OWNER = 1001;
const GUEST = 2002;
const STRANGER = 3003;
const GROUP = -100500;
const defer = cleanupAfterEach();

async function setup(options: { config?: string; beforeStart?: (tg: FakeTelegram) => void } = {}) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const tg = await startFakeTelegram();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => tg.close());
  h.writeConfig(
    [
      "[fermix_channels.telegram]",
      "enabled = true",
      `bot_token = "${tg.token}"`,
      `owner_user_id = ${OWNER}`,
      `allowed_user_ids = ["${GUEST}"]`,
      `api_base_url = "${tg.baseUrl}"`,
      options.config ?? 'streaming = "off"',
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  options.beforeStart?.(tg);
  const polling = tg.waitForCall("getUpdates", (c) => c.params.timeout === 50);
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    // Whatever happened, the bot token never reaches the daemon's log.
    expect(daemon.stderr()).not.toContain(tg.token);
  });
  await polling;
  return { h, llm, tg, env, daemon };
}

/** The next sendMessage to `chat` after this call (create it before whatever causes it). */
function nextReply(tg: FakeTelegram, chat: number, predicate: (c: TelegramCall) => boolean = () => true) {
  const mark = tg.calls.length;
  return tg.waitForCall("sendMessage", (c) => tg.calls.indexOf(c) >= mark && c.params.chat_id === chat && predicate(c));
}

const said = (tg: FakeTelegram, from: number, text: string, chat: number = from) =>
  tg.pushUpdate(textMessage({ chatId: chat, fromId: from, text }))[0]!.message.message_id as number;

describe("Telegram through the compiled daemon", () => {
  test("the owner gets the model's answer in their chat, as a reply, after a typing action", async () => {
    const { llm, tg } = await setup();
    llm.setDefault({ kind: "text", text: "Hello **owner**." });
    const reply = nextReply(tg, OWNER);
    const id = said(tg, OWNER, "hi fermix");
    const sent = await (await reply).answered;
    expect(sent.status).toBe(200);
    expect(sent.params).toMatchObject({
      chat_id: OWNER,
      text: "Hello <b>owner</b>.",
      parse_mode: "HTML",
      reply_parameters: { message_id: id, allow_sending_without_reply: true },
    });
    expect(tg.callsOf("sendChatAction")[0]!.params).toEqual({ chat_id: OWNER, action: "typing" });
    expect(llm.requests).toHaveLength(1);
    expect(JSON.stringify(llm.requests[0]!.body.input)).toContain("hi fermix");
  });

  test("a stranger gets nothing and reaches no model; a guest is answered with the guest surface only", async () => {
    const { llm, tg, h } = await setup();
    llm.setDefault({ kind: "text", text: "Hi guest." });
    // Both in one group: one conversation, one queue, so a stranger let in would have been answered first.
    const reply = nextReply(tg, GROUP);
    said(tg, STRANGER, "stranger here", GROUP);
    said(tg, GUEST, "guest here", GROUP);
    expect((await (await reply).answered).parsed!.text).toBe("Hi guest.");
    expect(tg.callsOf("sendMessage")).toHaveLength(1);
    expect(llm.requests).toHaveLength(1);
    const body = llm.requests[0]!.body;
    expect(JSON.stringify(body.input)).not.toContain("stranger here");
    const tools: string[] = (body.tools ?? []).map((t: { name: string }) => t.name);
    for (const name of ["shell", "file_read", "file_write", "web_fetch", "web_search", "request_directory_access"]) {
      expect(tools).not.toContain(name);
    }
    expect(readFileSync(join(h.home, "logs", "fermix.log"), "utf8")).toContain(`dropped a message from ${STRANGER}`);
  });

  test("/whoami and /new are answered without a model", async () => {
    const { llm, tg } = await setup();
    llm.setDefault({ kind: "text", text: "noted" });
    const first = nextReply(tg, OWNER);
    said(tg, OWNER, "remember: blue");
    await (await first).answered;

    const whoami = nextReply(tg, OWNER);
    said(tg, OWNER, "/whoami");
    const who = (await (await whoami).answered).parsed!.text;
    expect(who).toContain("trust: owner");
    expect(who).toContain("channel: telegram");
    expect(who).toContain(`chat: ${OWNER}`);

    const fresh = nextReply(tg, OWNER);
    said(tg, OWNER, "/new");
    expect((await (await fresh).answered).parsed!.text).toStartWith("Started a new conversation.");
    expect(llm.requests).toHaveLength(1);
  });

  test("/stop during a slow turn: the stop reply arrives and the turn's answer never does", async () => {
    const { llm, tg } = await setup();
    // The stopped turn would answer after 1.5 s; the next one answers after 2 s, so it lands after the first
    // would have, had it not been stopped.
    llm.enqueue(
      { kind: "delay", ms: 1500, reply: { kind: "text", text: "TOO LATE" } },
      { kind: "delay", ms: 2000, reply: { kind: "text", text: "fresh answer" } },
    );
    said(tg, OWNER, "take your time");
    await llm.waitForRequests(1);
    const stopped = nextReply(tg, OWNER);
    said(tg, OWNER, "/stop");
    expect((await (await stopped).answered).parsed!.text).toBe(
      "Stopped Fermix execution — cancelled 1 active turns, cleared 0 queued messages, and stopped 0 background tasks. Scheduled jobs and voice are not affected by /stop.",
    );
    const next = nextReply(tg, OWNER, (c) => c.params.text === "fresh answer");
    said(tg, OWNER, "and now?");
    await (await next).answered;
    expect(tg.callsOf("sendMessage").map((c) => c.params.text)).not.toContain("TOO LATE");
  });

  test("a 9,000-character answer with a 4,500-character code block: ordered HTML chunks and code-1.txt", async () => {
    const { llm, tg } = await setup();
    const code = Array.from({ length: 150 }, (_, i) => `const line${i} = ${i}; // ${"x".repeat(8)}`).join("\n");
    const paragraphs = Array.from({ length: 9 }, (_, i) => `**Part ${i + 1}.** ${"Plain words go here. ".repeat(23)}`);
    const answer = `${paragraphs.slice(0, 5).join("\n\n")}\n\n\`\`\`ts\n${code}\n\`\`\`\n\n${paragraphs.slice(5).join("\n\n")}`;
    expect(code.length).toBeGreaterThan(4400);
    expect(answer.length).toBeGreaterThan(8900);
    llm.setDefault({ kind: "text", text: answer });
    const document = tg.waitForCall("sendDocument");
    const lastPart = nextReply(tg, OWNER, (c) => String(c.params.text).includes("Part 9."));
    said(tg, OWNER, "write a lot");
    const doc = await (await document).answered;
    await (await lastPart).answered;
    expect(doc.files.document!.filename).toBe("code-1.txt");
    expect(doc.params.caption).toBe("Code from this reply (ts)");
    expect(new TextDecoder().decode(doc.files.document!.bytes)).toBe(code);

    const chunks = tg.callsOf("sendMessage");
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    expect(chunks.every((c) => c.status === 200 && c.params.parse_mode === "HTML")).toBe(true);
    expect(chunks.every((c) => c.parsed!.text.length <= 1400)).toBe(true);
    expect(chunks.map((c) => c.params.disable_notification ?? false)).toEqual([
      false,
      ...Array(chunks.length - 1).fill(true),
    ]);
    const text = chunks.map((c) => c.parsed!.text).join("\n\n");
    const order = Array.from({ length: 9 }, (_, i) => text.indexOf(`Part ${i + 1}.`));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(text).toContain("(full code attached as a file)");
    expect(chunks[0]!.params.text).toStartWith("<b>Part 1.</b>");
  });

  test("the Approve button: callback → /confirm, tap acknowledged, keyboard removed, grant saved, request re-run", async () => {
    const { llm, tg, h } = await setup();
    const data = join(h.userHome, "data");
    mkdirSync(data, { recursive: true });
    llm.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "request_directory_access", arguments: { path: data, reason: "the CSVs are there" } }],
      },
      { kind: "text", text: "I asked for access." },
    );
    llm.setDefault({ kind: "text", text: "Now I can read it." });
    const prompt = tg.waitForCall("sendMessage", (c) => c.params.reply_markup !== undefined);
    said(tg, OWNER, "summarise my data folder");
    const approval = await (await prompt).answered;
    const [[approve, deny]] = approval.params.reply_markup.inline_keyboard;
    expect(approve.text).toBe("✅ Approve");
    expect(deny.text).toBe("❌ Deny");
    const token = /^grant:(\w+)$/.exec(approve.callback_data)?.[1];
    expect(token).toBeDefined();
    expect(deny.callback_data).toBe(`deny:${token}`);
    expect(approval.parsed!.text).toContain(data);
    expect(approval.params.text).not.toContain(token!);

    const granted = nextReply(tg, OWNER, (c) => String(c.params.text).startsWith("Granted access"));
    const rerun = nextReply(tg, OWNER, (c) => c.params.text === "Now I can read it.");
    const [tap] = tg.pushUpdate(
      callbackQuery({
        chatId: OWNER,
        fromId: OWNER,
        messageId: approval.answer.result.message_id,
        data: approve.callback_data,
      }),
    );
    const answered = await (await tg.waitForCall("answerCallbackQuery")).answered;
    expect(answered.params.callback_query_id).toBe(tap!.callback_query.id);
    expect(answered.status).toBe(200);
    const removed = await (await tg.waitForCall("editMessageReplyMarkup")).answered;
    expect(removed.params).toMatchObject({
      message_id: approval.answer.result.message_id,
      reply_markup: { inline_keyboard: [] },
    });
    expect(removed.status).toBe(200);
    await (await granted).answered;
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain(`allowed_roots = ["${data}"]`);
    await (await rerun).answered;
    expect(llm.requests).toHaveLength(3);
    expect(JSON.stringify(llm.requests[2]!.body.input)).toContain("summarise my data folder");
  });

  test("a 429 on the first poll is waited out for retry_after before polling again", async () => {
    const { tg } = await setup({ beforeStart: (fake) => fake.failNext("getUpdates", { status: 429, retryAfter: 1 }) });
    const [limited, first] = tg.callsOf("getUpdates");
    expect(limited!.status).toBe(429);
    expect(first!.params.timeout).toBe(0);
    expect(first!.at - limited!.at).toBeGreaterThanOrEqual(1000);
  });

  test("a 409 shows in `fermix channels status` as another program polling the token; polling goes on", async () => {
    const { tg, env } = await setup();
    const held = tg.callsOf("getUpdates").at(-1)!;
    const next = tg.waitForCall(
      "getUpdates",
      (c) => tg.calls.indexOf(c) > tg.calls.indexOf(held) && c.params.timeout === 50,
    );
    // Another program polls the same token: Telegram ends the daemon's held poll with 409.
    const rival = await fetch(`${tg.baseUrl}/bot${tg.token}/getUpdates`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ timeout: 0 }),
    });
    expect(rival.status).toBe(200);
    expect((await held.answered).answer.description).toBe(CONFLICT_DESCRIPTION);

    const cli = { FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME };
    let channel: { degraded: string | null; connected: boolean } | undefined;
    const deadline = Date.now() + 15_000;
    // The daemon takes the 409 in as it arrives; the CLI asks until it shows (the deadline is a safety net).
    while (!channel?.degraded && Date.now() < deadline) {
      const status = await runFermix(["channels", "status", "--json"], { env: cli });
      channel = JSON.parse(status.stdout).result.channels.find((c: { name: string }) => c.name === "telegram");
    }
    expect(channel).toMatchObject({ connected: false });
    expect(channel!.degraded).toStartWith("another program is polling this bot token");
    // Backed off, then polling again.
    await next;
  }, 30_000);
});
