import { describe, expect, test } from "bun:test";
import type { ChannelAdapter, InboundMessage } from "../../../src/channels/channel.ts";
import { oneOffDeps } from "../../../src/channels/registry.ts";
import { SLACK_REACTIONS } from "../../../src/channels/slack/reactions.ts";
import { createSlackChannel } from "../../../src/channels/slack/slack-channel.ts";
import { FermixError } from "../../../src/error.ts";
import { createDedupe } from "../../../src/gateway/webhooks/dedupe.ts";
import { type FakeSlack, startFakeSlack } from "../../fake/slack-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { recordingLog } from "../telegram/_support.ts";

const defer = cleanupAfterEach();
const OWNER = "U0OWNER001";

async function channelFor(fake: FakeSlack, config: Record<string, unknown> = {}) {
  const log = recordingLog();
  const adapter = await createSlackChannel(
    oneOffDeps({
      config: {
        enabled: true,
        bot_token: fake.botToken,
        app_token: fake.appToken,
        owner_user_id: OWNER,
        api_base_url: fake.apiUrl,
        ...config,
      },
      resolveSecret: (ref) => String(ref),
      log,
      now: () => Date.now(),
      dedupe: createDedupe(),
    }),
  );
  return { adapter, log };
}

/** A started Socket Mode adapter and the messages it hands the gateway, one at a time. */
async function started(config: Record<string, unknown> = {}) {
  const fake = await startFakeSlack();
  defer(() => fake.close());
  const { adapter, log } = await channelFor(fake, config);
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
  return { fake, adapter, log, next, inbox };
}

async function refusal(promise: Promise<unknown>): Promise<FermixError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(FermixError);
    return err as FermixError;
  }
  throw new Error("expected a refusal");
}

describe("the Slack adapter over Socket Mode", () => {
  test("a DM arrives acknowledged and read; the bot's own echo and other bots are ignored", async () => {
    const { fake, adapter, next, inbox } = await started();
    expect(fake.connections.live).toBe(1);
    expect(fake.callsOf("apps.connections.open")[0]!.tokenVia).toBe("header");
    const dm = fake.message({ user: OWNER, text: "hi &lt;fermix&gt; see <https://example.com|this>" });
    const envelope = await fake.sendEvent(dm);
    await envelope.acked;
    const message = await next();
    expect(message).toMatchObject({
      id: dm.ts,
      channel: "slack",
      chatId: dm.channel,
      senderId: OWNER,
      text: "hi <fermix> see this (https://example.com)",
      chatType: "private",
      attachments: [],
    });
    expect(message.thread).toBeUndefined();

    // Its reply comes back over the socket as the bot's own message.im event; a bot_message too: neither is read.
    const echoed = fake.waitForCall("chat.postMessage");
    await adapter.send({ chatId: dm.channel }, { markdown: "hello" });
    await echoed;
    const bot = await fake.sendEvent(fake.message({ user: "U0OTHERBOT", text: "beep", botId: "B0OTHER" }));
    await bot.acked;
    const last = await fake.sendEvent(fake.message({ user: OWNER, text: "after" }));
    await last.acked;
    expect((await next()).text).toBe("after");
    expect(inbox).toHaveLength(0);
    expect(fake.envelopes.every((e) => e.attempts === 1)).toBe(true);
  });

  test("an app mention is answered in its thread, the mention taken out; a re-sent event is one message", async () => {
    const { fake, adapter, next, inbox } = await started();
    const channel = fake.channel();
    const mention = fake.mention({ user: OWNER, channel, text: "what's up?" });
    await (await fake.sendEvent(mention, { eventId: "Ev0REPEAT01" })).acked;
    const message = await next();
    expect(message).toMatchObject({ chatId: channel, thread: mention.ts, text: "what's up?", chatType: "group" });
    // Slack re-sends an event it thinks was lost: the same message is not handed on twice.
    await (await fake.sendEvent(mention, { eventId: "Ev0REPEAT01" })).acked;
    const later = fake.mention({ user: OWNER, channel, text: "in thread", threadTs: mention.ts });
    await (await fake.sendEvent(later)).acked;
    expect(await next()).toMatchObject({ text: "in thread", thread: mention.ts });
    expect(inbox).toHaveLength(0);

    await adapter.send({ chatId: channel, thread: mention.ts }, { markdown: "in the **thread**" });
    const post = fake.callsOf("chat.postMessage").at(-1)!;
    expect(post.params).toMatchObject({ channel, thread_ts: mention.ts, text: "in the *thread*" });
  });

  test("Slack recycling the connection: a new one opens and events keep coming", async () => {
    const { fake, next } = await started();
    fake.requestReconnect();
    await fake.waitForHello(2);
    expect(fake.callsOf("apps.connections.open")).toHaveLength(2);
    await (await fake.sendEvent(fake.message({ user: OWNER, text: "still there?" }))).acked;
    expect((await next()).text).toBe("still there?");
  });

  test("a long reply is several messages of at most 40,000 characters, in order", async () => {
    const { fake, adapter } = await started();
    const channel = fake.dm(OWNER);
    const text = Array.from({ length: 250 }, (_, i) => `Paragraph ${i + 1}. ${"word ".repeat(80)}`).join("\n\n");
    const sent = await adapter.send({ chatId: channel }, { markdown: text });
    const posts = fake.callsOf("chat.postMessage");
    expect(sent).toHaveLength(3);
    expect(posts.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(posts.every((p) => p.answer.ok === true && p.params.text.length <= 40_000)).toBe(true);
    expect(posts.map((p) => p.params.text.slice(0, 12))).toEqual([
      "Paragraph 1.",
      posts[1]!.params.text.slice(0, 12),
      posts[2]!.params.text.slice(0, 12),
    ]);
    expect(
      fake
        .botMessages(channel)
        .map((m) => m.text)
        .join("\n\n"),
    ).toBe(text.replace(/ +$/gm, "").trim());
  });

  test("a draft is one message edited in place (chat.update) and deleted when the turn is stopped", async () => {
    const { fake, adapter } = await started();
    const channel = fake.dm(OWNER);
    const [draft] = await adapter.send({ chatId: channel }, { markdown: "Thinking" });
    await adapter.edit!({ chatId: channel }, draft!.id, { markdown: "Thinking **harder**" });
    expect(fake.callsOf("chat.update")[0]!.params).toEqual({ channel, ts: draft!.id, text: "Thinking *harder*" });
    expect(fake.botMessages(channel).map((m) => m.text)).toEqual(["Thinking *harder*"]);
    await adapter.delete!({ chatId: channel }, draft!.id);
    expect(fake.botMessages(channel)).toHaveLength(0);
    // A user's message is not the bot's to edit: Slack's refusal comes back as an error.
    const theirs = fake.message({ user: OWNER, text: "mine" });
    const refused = await refusal(adapter.edit!({ chatId: channel }, theirs.ts, { markdown: "x" }));
    expect(refused.data).toMatchObject({ error: "cant_update_message", kind: "remote_rejected" });
  });

  test("reactions go by shortcode; one already there is fine; anything off the list is refused", async () => {
    const { fake, adapter } = await started();
    const dm = fake.message({ user: OWNER, text: "thanks" });
    const target = { chatId: dm.channel, replyTo: dm.ts };
    expect(adapter.capabilities.reactions).toEqual(SLACK_REACTIONS);
    await adapter.react!(target, dm.ts, "👍");
    await adapter.react!(target, dm.ts, ":thumbsup:");
    await adapter.react!(target, dm.ts, "❤");
    const calls = fake.callsOf("reactions.add");
    expect(calls.map((c) => c.params)).toEqual([
      { channel: dm.channel, name: "thumbsup", timestamp: dm.ts },
      { channel: dm.channel, name: "thumbsup", timestamp: dm.ts },
      { channel: dm.channel, name: "heart", timestamp: dm.ts },
    ]);
    expect(calls[1]!.answer).toEqual({ ok: false, error: "already_reacted" });
    const refused = await refusal(adapter.react!(target, dm.ts, "🦄"));
    expect(refused.code).toBe("slack_reaction_unsupported");
    expect(fake.callsOf("reactions.add")).toHaveLength(3);
  });

  test("a file goes through the external upload flow into the thread, captioned", async () => {
    const { fake, adapter } = await started();
    const channel = fake.channel();
    const mention = fake.mention({ user: OWNER, channel, text: "send it" });
    const bytes = new TextEncoder().encode("a,b\n1,2\n");
    const sent = await adapter.sendFile!(
      { chatId: channel, thread: mention.ts },
      { kind: "document", bytes, filename: "data.csv", mime: "text/csv", caption: "Your **data**" },
    );
    const [slot] = fake.callsOf("files.getUploadURLExternal");
    expect(slot!.params).toEqual({ filename: "data.csv", length: String(bytes.byteLength) });
    const [done] = fake.callsOf("files.completeUploadExternal");
    expect(done!.answer.ok).toBe(true);
    expect(JSON.parse(done!.params.files)).toEqual([{ id: sent.id, title: "data.csv" }]);
    expect(fake.uploads[0]).toMatchObject({
      fileId: sent.id,
      completed: { channel, threadTs: mention.ts, initialComment: "Your *data*" },
    });
    expect(fake.uploads[0]!.bytes).toEqual(bytes);
  });

  test("Slack's ok:false answers become errors of the facts' kinds; a rate limit carries Retry-After", async () => {
    const { fake, adapter } = await started();
    const gone = await refusal(adapter.send({ chatId: "C0NOWHERE" }, { markdown: "hi" }));
    expect(gone).toMatchObject({
      code: "slack_api_error",
      data: { error: "channel_not_found", kind: "invalid_destination" },
    });
    const channel = fake.dm(OWNER);
    fake.failNext("chat.postMessage", { error: "missing_scope" });
    const scope = await refusal(adapter.send({ chatId: channel }, { markdown: "hi" }));
    expect(scope.data).toMatchObject({ error: "missing_scope", kind: "authorization" });
    fake.failNext("chat.postMessage", { error: "token_revoked" });
    expect((await refusal(adapter.send({ chatId: channel }, { markdown: "hi" }))).data).toMatchObject({
      kind: "authentication",
    });
    fake.failNext("chat.postMessage", { status: 429, retryAfter: 45 }, 2);
    const limited = await refusal(adapter.send({ chatId: channel }, { markdown: "hi" }));
    expect(limited).toMatchObject({ code: "slack_rate_limited", data: { retryAfter: 45 } });
  });

  test("a user's file is read from url_private with the bot token; a file host that is not Slack's never gets it", async () => {
    const { fake, next } = await started();
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const file = fake.addFile(jpeg, { name: "cat.jpg", mimetype: "image/jpeg", filetype: "jpg" });
    const voice = fake.addFile(new Uint8Array([0x1a, 0x45, 0xdf, 0xa3]), {
      name: "audio_message.webm",
      mimetype: "audio/webm",
      filetype: "webm",
      subtype: "slack_audio",
    });
    await (await fake.sendEvent(fake.message({ user: OWNER, text: "look", files: [file, voice] }))).acked;
    const message = await next();
    expect(message.attachments.map((a) => [a.kind, a.mime, a.filename, a.transcribe ?? false])).toEqual([
      ["image", "image/jpeg", "cat.jpg", false],
      ["audio", "audio/webm", "audio_message.webm", true],
    ]);
    expect(await message.attachments[0]!.download(1024)).toEqual(jpeg);
    const tooSmall = await refusal(message.attachments[0]!.download(3));
    expect(tooSmall.code).toBe("slack_file_refused");

    const elsewhere = {
      ...file,
      url_private: "http://127.0.0.2:9/x.jpg",
      url_private_download: "http://127.0.0.2:9/x.jpg",
    };
    await (await fake.sendEvent(fake.message({ user: OWNER, text: "evil", files: [elsewhere] }))).acked;
    const evil = await next();
    expect((await refusal(evil.attachments[0]!.download(1024))).message).toContain("not a Slack file host");
  });

  test("the doctor check names the bot and tests the app-level token; a wrong token says what to do", async () => {
    const fake = await startFakeSlack();
    defer(() => fake.close());
    const ok = await (await channelFor(fake)).adapter.check();
    expect(ok).toEqual({
      ok: true,
      detail: "bot @fermix (U0FERMIXBOT) in Fermix Test; the app-level token opens Socket Mode",
    });
    const wrongApp = await (await channelFor(fake, { app_token: "xapp-1-A0-1-wrongwrongwrong" })).adapter.check();
    expect(wrongApp).toMatchObject({ ok: false, detail: "Slack refused the app-level token: invalid_auth" });
    expect((wrongApp as { fix: string }).fix).toContain("App-Level Tokens");
    const wrongBot = await (await channelFor(fake, { bot_token: "xoxb-0-0-wrongwrongwrong" })).adapter.check();
    expect(wrongBot).toMatchObject({ ok: false, detail: "Slack refused the bot token: invalid_auth" });
    expect((wrongBot as { fix: string }).fix).toContain("OAuth & Permissions");
  });

  test("a refused token fails the start loudly; a missing app token or a user token is refused before any call", async () => {
    const fake = await startFakeSlack();
    defer(() => fake.close());
    const bad = (await channelFor(fake, { bot_token: "xoxb-0-0-wrongwrongwrong" })).adapter;
    expect((await refusal(bad.start(() => {}))).code).toBe("slack_token_rejected");
    const badApp = (await channelFor(fake, { app_token: "xapp-1-A0-1-wrongwrongwrong" })).adapter;
    const refused = await refusal(badApp.start(() => {}));
    expect(refused.code).toBe("slack_app_token_refused");
    expect(refused.message).toContain("invalid_auth");
    await badApp.stop();
    expect((await refusal(channelFor(fake, { app_token: undefined }))).message).toContain("app_token");
    expect((await refusal(channelFor(fake, { bot_token: "xoxp-1-2-3" }))).message).toContain("xoxb-");
    expect((await refusal(channelFor(fake, { mode: "webhook" }))).message).toContain("signing_secret");
    expect(fake.calls.filter((c) => c.method !== "auth.test" && c.method !== "apps.connections.open")).toHaveLength(0);
  });

  test("health: connected while the socket is up, with the last envelope's time", async () => {
    const { fake, adapter, next } = await started();
    const before = adapter.health();
    expect(before.connected).toBe(true);
    await (await fake.sendEvent(fake.message({ user: OWNER, text: "x" }))).acked;
    await next();
    expect(adapter.health().lastUpdateAt).toBeGreaterThanOrEqual(before.lastUpdateAt!);
    expect((adapter as ChannelAdapter).capabilities.approveButtons).toBe(false);
  });
});
