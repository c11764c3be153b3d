import { describe, expect, test } from "bun:test";
import type { InboundMessage } from "../../../src/channels/channel.ts";
import { oneOffDeps } from "../../../src/channels/registry.ts";
import { createTelegramChannel } from "../../../src/channels/telegram/telegram-channel.ts";
import { FermixError } from "../../../src/error.ts";
import {
  albumPart,
  callbackQuery,
  type FakeTelegram,
  photoMessage,
  startFakeTelegram,
  textMessage,
  voiceMessage,
} from "../../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { recordingLog } from "./_support.ts";

const defer = cleanupAfterEach();
const OWNER = 1001;
const MB = 1024 * 1024;

function channelFor(fake: FakeTelegram, config: Record<string, unknown> = {}) {
  const log = recordingLog();
  const adapter = createTelegramChannel(
    oneOffDeps({
      config: {
        enabled: true,
        bot_token: fake.token,
        owner_user_id: String(OWNER),
        api_base_url: fake.baseUrl,
        ...config,
      },
      resolveSecret: (ref) => String(ref),
      log,
      now: () => Date.now(),
    }),
  );
  return { adapter, log };
}

/** A started adapter and the messages it hands the gateway, one at a time. */
async function started() {
  const fake = await startFakeTelegram();
  defer(() => fake.close());
  const { adapter, log } = channelFor(fake);
  const inbox: InboundMessage[] = [];
  const waiting: Array<(m: InboundMessage) => void> = [];
  await adapter.start((message) => {
    const next = waiting.shift();
    if (next) next(message);
    else inbox.push(message);
  });
  defer(() => adapter.stop());
  const next = () =>
    inbox.length ? Promise.resolve(inbox.shift()!) : new Promise<InboundMessage>((resolve) => waiting.push(resolve));
  return { fake, adapter, log, next };
}

/** The owner writes first: Telegram only lets a bot write to a chat it knows. */
async function userSaid(fake: FakeTelegram, text = "hello") {
  const [update] = fake.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text }));
  return update!.message.message_id as number;
}

describe("creating the Telegram channel", () => {
  test("no bot token: a sentence that says how to set one", async () => {
    const fake = await startFakeTelegram();
    defer(() => fake.close());
    expect(() => channelFor(fake, { bot_token: undefined })).toThrow(
      "the Telegram channel is enabled but has no bot token: run `fermix setup --channel telegram`, or set bot_token in [fermix_channels.telegram] in config.toml",
    );
  });

  test("a token from an environment variable is refused (two installs would poll one bot)", async () => {
    const fake = await startFakeTelegram();
    defer(() => fake.close());
    for (const ref of ["$TELEGRAM_BOT_TOKEN", "$" + "{TG}", { source: "env", name: "TG" }]) {
      let err: unknown;
      try {
        channelFor(fake, { bot_token: ref });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FermixError);
      expect((err as FermixError).code).toBe("telegram_not_configured");
      expect((err as Error).message).toContain("may not come from an environment variable");
    }
  });

  test("a rejected token fails start with what to do; the token is in no message", async () => {
    const fake = await startFakeTelegram();
    defer(() => fake.close());
    const wrong = "555555555:AAHwrongwrongwrongwrongwrongwrong12345";
    const { adapter, log } = channelFor(fake, { bot_token: wrong });
    const err = await adapter
      .start(() => {})
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(err?.message).toBe(
      "Telegram rejected the bot token (401 Unauthorized): the token was revoked or mistyped — copy the current one from @BotFather and run `fermix setup --channel telegram`",
    );
    expect(log.lines.join("\n")).not.toContain(wrong);
  });
});

describe("inbound updates", () => {
  test("a text message: ids as strings, sender, chat type, reply target", async () => {
    const { fake, next } = await started();
    const [update] = fake.pushUpdate(
      textMessage({ chatId: OWNER, fromId: OWNER, text: "hi there", username: "owner_u" }),
    );
    const message = await next();
    expect(message).toEqual({
      id: String(update!.message.message_id),
      channel: "telegram",
      chatId: String(OWNER),
      senderId: String(OWNER),
      senderName: "owner_u",
      text: "hi there",
      attachments: [],
      chatType: "private",
      ...(update!.message.date !== undefined ? { sentAt: update!.message.date * 1000 } : {}),
      // Kept with the message in memory.db, so the channel can revive it after a restart.
      deliveryId: String(update!.update_id),
      raw: update,
    });
  });

  test("a forum topic is a thread; a group's sender is who wrote, not the chat", async () => {
    const { fake, next } = await started();
    fake.pushUpdate(textMessage({ chatId: -100123, fromId: 2002, firstName: "Ann", text: "in a topic", threadId: 77 }));
    expect(await next()).toMatchObject({
      chatId: "-100123",
      thread: "77",
      senderId: "2002",
      senderName: "Ann",
      chatType: "group",
    });
  });

  test("a photo with a caption: the largest size, downloaded through getFile with the cap on the declared size", async () => {
    const { fake, next } = await started();
    const bytes = new Uint8Array(4096).fill(7);
    const file = fake.addFile(bytes, { path: "photos/file_9.jpg" });
    fake.pushUpdate(photoMessage({ chatId: OWNER, fromId: OWNER, file, caption: "what is this?" }));
    const message = await next();
    expect(message.text).toBe("what is this?");
    expect(message.attachments).toHaveLength(1);
    const [photo] = message.attachments;
    expect(photo).toMatchObject({ kind: "image", mime: "image/jpeg", size: 4096 });
    expect(await photo!.download(20 * MB)).toEqual(bytes);
    expect(fake.callsOf("getFile")[0]!.params).toEqual({ file_id: file.file_id });

    // Declared over the cap: refused before getFile is asked.
    await expect(photo!.download(1000)).rejects.toThrow("over the");
    expect(fake.callsOf("getFile")).toHaveLength(1);
  });

  test("a file larger than it said is cut off while streaming", async () => {
    const { fake, next } = await started();
    const file = fake.addFile(new Uint8Array(300_000), { declaredSize: 1000, streamed: true });
    fake.pushUpdate(photoMessage({ chatId: OWNER, fromId: OWNER, file }));
    const [photo] = (await next()).attachments;
    await expect(photo!.download(100_000)).rejects.toThrow("larger than");
  });

  test("voice notes are audio/ogg to transcribe; album parts carry their media_group_id", async () => {
    const { fake, next } = await started();
    const voice = fake.addFile(new Uint8Array(10), { path: "voice/file_1.oga" });
    fake.pushUpdate(voiceMessage({ chatId: OWNER, fromId: OWNER, file: voice, caption: "listen" }));
    expect((await next()).attachments[0]).toMatchObject({ kind: "audio", mime: "audio/ogg", transcribe: true });
    const part = fake.addFile(new Uint8Array(10));
    fake.pushUpdate(albumPart({ chatId: OWNER, fromId: OWNER, file: part, mediaGroupId: "1357" }));
    expect(await next()).toMatchObject({ mediaGroupId: "1357", attachments: [{ kind: "image" }] });
  });

  test("video notes and audio documents are transcribed too", async () => {
    const { fake, next } = await started();
    const file = fake.addFile(new Uint8Array(10));
    fake.pushUpdate({
      message: {
        ...textMessage({ chatId: OWNER, fromId: OWNER, text: "" }).message,
        text: undefined,
        video_note: { ...file, length: 240, duration: 2 },
      },
    });
    expect((await next()).attachments[0]).toMatchObject({ kind: "video", mime: "video/mp4", transcribe: true });
    fake.pushUpdate({
      message: {
        ...textMessage({ chatId: OWNER, fromId: OWNER, text: "" }).message,
        text: undefined,
        caption: "memo",
        document: { ...file, mime_type: "audio/mpeg", file_name: "memo.mp3" },
      },
    });
    expect(await next()).toMatchObject({
      text: "memo",
      attachments: [{ kind: "audio", mime: "audio/mpeg", transcribe: true, filename: "memo.mp3" }],
    });
  });

  test("an Approve/Deny tap becomes /confirm or /deny with the tap; any other tap is only acknowledged", async () => {
    const { fake, adapter, next } = await started();
    await userSaid(fake);
    await next();
    const sent = await adapter.send(
      { chatId: String(OWNER) },
      { markdown: "Allow?", buttons: [{ text: "✅ Approve", data: "grant:ABCD2345" }] },
    );
    const messageId = Number(sent[0]!.id);
    const [tap] = fake.pushUpdate(callbackQuery({ chatId: OWNER, fromId: OWNER, messageId, data: "grant:ABCD2345" }));
    const message = await next();
    expect(message).toMatchObject({
      id: `callback-${tap!.callback_query.id}`,
      chatId: String(OWNER),
      senderId: String(OWNER),
      text: "/confirm ABCD2345",
      tap: { id: tap!.callback_query.id, messageId: String(messageId) },
    });
    fake.pushUpdate(callbackQuery({ chatId: OWNER, fromId: OWNER, messageId, data: "deny:ABCD2345" }));
    expect((await next()).text).toBe("/deny ABCD2345");

    const [stray] = fake.pushUpdate(callbackQuery({ chatId: OWNER, fromId: OWNER, messageId, data: "something-else" }));
    const answered = await (
      await fake.waitForCall("answerCallbackQuery", (c) => c.params.callback_query_id === stray!.callback_query.id)
    ).answered;
    expect(answered.status).toBe(200);
  });

  test("answerTap acknowledges the tap and removes the keyboard", async () => {
    const { fake, adapter } = await started();
    await userSaid(fake);
    const [sent] = await adapter.send(
      { chatId: String(OWNER) },
      { markdown: "Allow?", buttons: [{ text: "✅ Approve", data: "grant:ABCD2345" }] },
    );
    const [tap] = fake.pushUpdate(
      callbackQuery({ chatId: OWNER, fromId: OWNER, messageId: Number(sent!.id), data: "grant:ABCD2345" }),
    );
    await adapter.answerTap!(tap!.callback_query.id, { chatId: String(OWNER) }, sent!.id);
    expect(fake.callsOf("answerCallbackQuery").map((c) => c.status)).toEqual([200]);
    const edit = fake.callsOf("editMessageReplyMarkup")[0]!;
    expect(edit.params).toEqual({
      chat_id: OWNER,
      message_id: Number(sent!.id),
      reply_markup: { inline_keyboard: [] },
    });
    expect(edit.status).toBe(200);
    expect(fake.sent.get(`${OWNER}:${sent!.id}`)!.replyMarkup).toBeUndefined();
  });
});

describe("outbound", () => {
  test("a long reply: ordered HTML chunks, only the first notifies and replies, code as code-1.txt, buttons last", async () => {
    const { fake, adapter } = await started();
    const replyTo = await userSaid(fake);
    const code = Array.from({ length: 150 }, (_, i) => `print(${i}) # ${"x".repeat(20)}`).join("\n");
    const prose = Array.from({ length: 8 }, (_, i) => `Part ${i + 1}: ${"some **useful** words ".repeat(30)}`).join(
      "\n\n",
    );
    const sent = await adapter.send(
      { chatId: String(OWNER), replyTo: String(replyTo) },
      {
        markdown: `${prose}\n\n\`\`\`python\n${code}\n\`\`\`\n\nThat is all.`,
        buttons: [{ text: "OK", data: "grant:ZZZZ2222" }],
      },
    );
    const messages = fake.callsOf("sendMessage");
    const documents = fake.callsOf("sendDocument");
    expect(sent).toHaveLength(messages.length + documents.length);
    expect(messages.length).toBeGreaterThan(3);
    for (const [i, call] of messages.entries()) {
      expect(call.status).toBe(200);
      expect(call.params.parse_mode).toBe("HTML");
      expect(call.params.link_preview_options).toEqual({ is_disabled: true });
      expect(call.parsed!.text.length).toBeLessThanOrEqual(1400);
      expect(call.params.disable_notification).toBe(i === 0 ? undefined : true);
      expect(call.params.reply_parameters).toEqual(
        i === 0 ? { message_id: replyTo, allow_sending_without_reply: true } : undefined,
      );
      expect(call.params.reply_markup).toEqual(
        i === messages.length - 1
          ? { inline_keyboard: [[{ text: "OK", callback_data: "grant:ZZZZ2222" }]] }
          : undefined,
      );
    }
    expect(messages.map((c) => c.parsed!.text).join("\n\n")).toContain("Part 8:");
    expect(messages.at(-1)!.parsed!.text).toEndWith("(full code attached as a file)\n\nThat is all.");
    expect(documents).toHaveLength(1);
    expect(documents[0]!.params).toMatchObject({
      chat_id: String(OWNER),
      caption: "Code from this reply (python)",
      disable_notification: "true",
    });
    expect(documents[0]!.files.document!.filename).toBe("code-1.txt");
    expect(new TextDecoder().decode(documents[0]!.files.document!.bytes)).toBe(code);
    // The document follows the chunk that says "(full code attached as a file)".
    const order = fake.calls.filter((c) => c.method === "sendMessage" || c.method === "sendDocument");
    const at = order.findIndex((c) => c.method === "sendDocument");
    expect(order[at - 1]!.parsed!.text).toContain("(full code attached as a file)");
  });

  test("'can't parse entities' → the chunk once more as plain text, without parse_mode", async () => {
    const { fake, adapter } = await started();
    await userSaid(fake);
    fake.failNext("sendMessage", {
      status: 400,
      description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0',
    });
    await adapter.send({ chatId: String(OWNER) }, { markdown: "**hi** <there>" });
    const [first, second] = fake.callsOf("sendMessage");
    expect(first!.status).toBe(400);
    expect(second!.params.parse_mode).toBeUndefined();
    expect(second!.params.text).toBe("hi <there>");
    expect(second!.status).toBe(200);
  });

  test("a 429 on a send waits retry_after once", async () => {
    const { fake, adapter } = await started();
    await userSaid(fake);
    fake.failNext("sendMessage", { status: 429, retryAfter: 0 });
    await adapter.send({ chatId: String(OWNER) }, { markdown: "hello" });
    expect(fake.callsOf("sendMessage").map((c) => c.status)).toEqual([429, 200]);
  });

  test("edit: editMessageText; 'message is not modified' counts as done", async () => {
    const { fake, adapter } = await started();
    await userSaid(fake);
    const [draft] = await adapter.send({ chatId: String(OWNER) }, { markdown: "drafting…" });
    await adapter.edit!({ chatId: String(OWNER) }, draft!.id, { markdown: "**final**" });
    await adapter.edit!({ chatId: String(OWNER) }, draft!.id, { markdown: "**final**" });
    const edits = fake.callsOf("editMessageText");
    expect(edits.map((c) => c.status)).toEqual([200, 400]);
    expect(edits[1]!.answer.description).toStartWith("Bad Request: message is not modified");
    expect(fake.sent.get(`${OWNER}:${draft!.id}`)!.html).toBe("<b>final</b>");
  });

  test("delete and typing", async () => {
    const { fake, adapter } = await started();
    await userSaid(fake);
    const [msg] = await adapter.send({ chatId: String(OWNER) }, { markdown: "bye" });
    await adapter.delete!({ chatId: String(OWNER) }, msg!.id);
    expect(fake.sent.has(`${OWNER}:${msg!.id}`)).toBe(false);
    await adapter.typing!({ chatId: String(OWNER), thread: "5" });
    expect(fake.callsOf("sendChatAction")[0]!.params).toEqual({
      chat_id: OWNER,
      message_thread_id: 5,
      action: "typing",
    });
  });

  test("reactions: one of the 24, a variation selector forgiven; anything else refused with the list", async () => {
    const { fake, adapter } = await started();
    const id = await userSaid(fake);
    expect(adapter.capabilities.reactions).toHaveLength(24);
    await adapter.react!({ chatId: String(OWNER) }, String(id), "👍\uFE0F");
    expect(fake.callsOf("setMessageReaction")[0]!.params).toEqual({
      chat_id: OWNER,
      message_id: id,
      reaction: [{ type: "emoji", emoji: "👍" }],
    });
    expect(fake.callsOf("setMessageReaction")[0]!.status).toBe(200);
    const err = await adapter.react!({ chatId: String(OWNER) }, String(id), "🦄").then(
      () => undefined,
      (e: FermixError) => e,
    );
    expect(err?.code).toBe("telegram_reaction_unsupported");
    expect(err?.message).toStartWith('Telegram does not accept "🦄" as a reaction; use one of 👍 👎 🔥');
    expect(fake.callsOf("setMessageReaction")).toHaveLength(1);
  });

  test("files: multipart send* by kind, refused over Telegram's caps before upload", async () => {
    const { fake, adapter } = await started();
    await userSaid(fake);
    const photo = new Uint8Array(2048).fill(1);
    await adapter.sendFile!(
      { chatId: String(OWNER) },
      { kind: "image", bytes: photo, filename: "chart.png", mime: "image/png", caption: "the chart" },
    );
    const call = fake.callsOf("sendPhoto")[0]!;
    expect(call.status).toBe(200);
    expect(call.params).toMatchObject({ chat_id: String(OWNER), caption: "the chart" });
    expect(call.files.photo).toMatchObject({ filename: "chart.png", type: "image/png" });
    expect(call.files.photo!.bytes).toEqual(photo);

    await adapter.sendFile!(
      { chatId: String(OWNER) },
      { kind: "voice", bytes: new Uint8Array(10), filename: "v.ogg", mime: "audio/ogg" },
    );
    expect(fake.callsOf("sendVoice")[0]!.files.voice!.filename).toBe("v.ogg");

    const big = new Uint8Array(11 * MB);
    await expect(
      adapter.sendFile!(
        { chatId: String(OWNER) },
        { kind: "image", bytes: big, filename: "huge.png", mime: "image/png" },
      ),
    ).rejects.toThrow(
      "huge.png is 11 MB; Telegram bots can send a photo of up to 10 MB. Send it as a document instead (up to 50 MB).",
    );
    expect(fake.callsOf("sendPhoto")).toHaveLength(1);
  });
});

describe("doctor's check", () => {
  test("getMe names the bot", async () => {
    const fake = await startFakeTelegram();
    defer(() => fake.close());
    expect(await channelFor(fake).adapter.check()).toEqual({ ok: true, detail: "bot @fermix_test_bot (id 123456789)" });
    expect(fake.callsOf("getMe")).toHaveLength(1);
  });

  test("404 (a token with a bot prefix): the BotFather sentence; 401: revoked or mistyped", async () => {
    const fake = await startFakeTelegram();
    defer(() => fake.close());
    expect(await channelFor(fake, { bot_token: `bot${fake.token}` }).adapter.check()).toEqual({
      ok: false,
      detail: "invalid bot token: Telegram answered 404 Not Found",
      fix: "paste the BotFather token without a bot prefix (fermix setup --channel telegram)",
    });
    const wrong = "123456789:AAHsomeoneElsesTokenXXXXXXXXXXXXXXXXX";
    const denied = await channelFor(fake, { bot_token: wrong }).adapter.check();
    expect(denied).toMatchObject({ ok: false, detail: "Telegram refused the bot token (401 Unauthorized)" });
    expect(JSON.stringify(denied)).not.toContain(wrong);
  });

  test("an unreachable server: a sentence without the token in it", async () => {
    const fake = await startFakeTelegram();
    const { adapter } = channelFor(fake);
    await fake.close();
    const result = await adapter.check();
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain(fake.token);
    expect(result.detail).toStartWith("could not reach Telegram for getMe");
  });
});
