import { describe, expect, test } from "bun:test";
import type { ChannelAdapter, InboundMessage } from "../../../src/channels/channel.ts";
import { createAttachmentFetcher } from "../../../src/channels/discord/attachment-download.ts";
import { REFUSAL } from "../../../src/channels/discord/button-taps.ts";
import { createDiscordChannel } from "../../../src/channels/discord/discord-channel.ts";
import { withEnvOverlay } from "../../../src/channels/env-overlay.ts";
import { oneOffDeps } from "../../../src/channels/registry.ts";
import { FermixError } from "../../../src/error.ts";
import { channelAccess } from "../../../src/gateway/channel-access.ts";
import { createDedupe } from "../../../src/gateway/webhooks/dedupe.ts";
import { type FakeDiscord, type FakeUser, startFakeDiscord } from "../../fake/discord-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { recordingLog } from "../telegram/_support.ts";

const defer = cleanupAfterEach();
const OWNER: FakeUser = { id: "111111111111111111", username: "owner" };
const GUEST: FakeUser = { id: "222222222222222222", username: "guest" };
const OWNER_DM = "711111111111111111";
const CALLBACK = "POST /interactions/:interaction/:token/callback";

function channelFor(fake: FakeDiscord, config: Record<string, unknown> = {}) {
  const log = recordingLog();
  const errors: Array<(line: string) => void> = [];
  const adapter = createDiscordChannel(
    oneOffDeps({
      config: { enabled: true, bot_token: fake.token, owner_user_id: OWNER.id, api_base_url: fake.baseUrl, ...config },
      resolveSecret: (ref) => String(ref),
      log: {
        ...log,
        error(line) {
          log.error(line);
          for (const waiter of errors.splice(0)) waiter(line);
        },
      },
      now: () => Date.now(),
      dedupe: createDedupe(),
    }),
  );
  /** Resolves with the next error line the adapter logs. */
  const nextError = () => new Promise<string>((resolve) => errors.push(resolve));
  return { adapter, log, nextError };
}

async function started(config: Record<string, unknown> = {}) {
  const fake = await startFakeDiscord();
  defer(() => fake.close());
  const { adapter, log } = channelFor(fake, config);
  const inbox: InboundMessage[] = [];
  const waiting: Array<(m: InboundMessage) => void> = [];
  await adapter.start((message) => {
    const next = waiting.shift();
    if (next) next(message);
    else inbox.push(message);
  });
  defer(() => adapter.stop());
  await fake.waitForSession();
  const next = () =>
    inbox.length ? Promise.resolve(inbox.shift()!) : new Promise<InboundMessage>((resolve) => waiting.push(resolve));
  return { fake, adapter: adapter as ChannelAdapter, log, next, inbox };
}

/** A bot message with the Approve/Deny buttons in the owner's DM. */
async function approvalIn(fake: FakeDiscord, adapter: ChannelAdapter, next: () => Promise<InboundMessage>) {
  fake.userMessage({ channelId: OWNER_DM, author: OWNER, content: "hi" });
  await next();
  const [sent] = await adapter.send(
    { chatId: OWNER_DM },
    {
      markdown: "May I read ~/data?",
      buttons: [
        { text: "✅ Approve", data: "grant:AB12CD34" },
        { text: "❌ Deny", data: "deny:AB12CD34" },
      ],
    },
  );
  return sent!.id;
}

describe("creating the Discord channel", () => {
  test("no bot token: a sentence that says how to set one", () => {
    expect(() =>
      createDiscordChannel(
        oneOffDeps({ config: { enabled: true }, resolveSecret: String, log: recordingLog(), now: Date.now }),
      ),
    ).toThrow("the Discord channel is enabled but has no bot token: run `fermix setup --channel discord`");
  });

  test("DISCORD_BOT_TOKEN, _BOT_USER_ID and _ALLOWED_USER_IDS overlay the table; an empty list is an explicit one", () => {
    const block = withEnvOverlay(
      "discord",
      { enabled: true, bot_token: "@keyring", owner_user_id: OWNER.id, allowed_user_ids: ["1"] },
      { DISCORD_BOT_TOKEN: "tok", DISCORD_BOT_USER_ID: " 42 ", DISCORD_ALLOWED_USER_IDS: `${GUEST.id}, 333` },
    );
    expect(block).toMatchObject({
      bot_token: { source: "env", name: "DISCORD_BOT_TOKEN" },
      bot_user_id: "42",
      allowed_user_ids: [GUEST.id, "333"],
    });
    const access = channelAccess("discord", block as never, { streaming: "block" });
    expect(access.ok && [...access.access.ingress]).toEqual([OWNER.id, GUEST.id, "333"]);
    const none = withEnvOverlay("discord", { owner_user_id: OWNER.id }, { DISCORD_ALLOWED_USER_IDS: "" });
    expect(none.allowed_user_ids).toEqual([]);
  });
});

describe("the Discord channel against the fake", () => {
  test("a DM arrives as a message and a reply goes back, referencing it", async () => {
    const { fake, adapter, next } = await started();
    const sent = fake.userMessage({ channelId: OWNER_DM, author: OWNER, content: "hello" });
    const message = await next();
    expect(message).toMatchObject({
      id: sent.id,
      chatId: OWNER_DM,
      senderId: OWNER.id,
      text: "hello",
      chatType: "private",
    });
    const out = await adapter.send({ chatId: OWNER_DM, replyTo: sent.id }, { markdown: "Hi **there**" });
    expect(out).toHaveLength(1);
    const call = fake.callsOf("POST /channels/:channel/messages")[0]!;
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({
      content: "Hi **there**",
      allowed_mentions: { parse: [], replied_user: true },
      message_reference: { message_id: sent.id, channel_id: OWNER_DM, fail_if_not_exists: false },
    });
  });

  test("the same MESSAGE_CREATE delivered twice (a resume replaying it) reaches the gateway once", async () => {
    const { fake, next, inbox } = await started();
    const first = fake.userMessage({ channelId: OWNER_DM, author: OWNER, content: "once" });
    fake.gateway.dispatch("MESSAGE_CREATE", first);
    fake.userMessage({ channelId: OWNER_DM, author: OWNER, content: "barrier" });
    expect((await next()).text).toBe("once");
    expect((await next()).text).toBe("barrier");
    expect(inbox).toEqual([]);
  });

  test("edits, deletes, typing; an emoji Discord does not know and a target that is not an id are errors", async () => {
    const { fake, adapter, next } = await started();
    const said = fake.userMessage({ channelId: OWNER_DM, author: OWNER, content: "hi" });
    await next();
    const [draft] = await adapter.send({ chatId: OWNER_DM }, { markdown: "draft" });
    await adapter.edit!({ chatId: OWNER_DM }, draft!.id, { markdown: "final" });
    expect(fake.messages.get(draft!.id)!.content).toBe("final");
    await adapter.typing!({ chatId: OWNER_DM });
    await adapter.delete!({ chatId: OWNER_DM }, draft!.id);
    expect(fake.messages.has(draft!.id)).toBe(false);
    await adapter.react!({ chatId: OWNER_DM }, said.id, "🎉");
    const err = await adapter.react!({ chatId: OWNER_DM }, said.id, "not-an-emoji").catch((e) => e);
    expect(err).toBeInstanceOf(FermixError);
    expect(err.code).toBe("discord_api_error");
    expect(err.data).toMatchObject({ status: 400, code: 10014 });
    const before = fake.calls.length;
    const bad = await adapter.send({ chatId: "../users/@me" }, { markdown: "x" }).catch((e) => e);
    expect(bad.code).toBe("discord_bad_target");
    const big = await adapter.sendFile!(
      { chatId: OWNER_DM },
      {
        kind: "document",
        bytes: new Uint8Array(10 * 1024 * 1024 + 1),
        filename: "big.bin",
        mime: "application/octet-stream",
      },
    ).catch((e) => e);
    expect(big.message).toBe("big.bin is 10 MB; Discord bots can send files of up to 10 MB.");
    expect(fake.calls.length).toBe(before);
  });

  test("a 429 longer than the adapter waits fails at once with Discord's retry_after, for job delivery to honour", async () => {
    const { fake, adapter, next } = await started();
    fake.userMessage({ channelId: OWNER_DM, author: OWNER, content: "hi" });
    await next();
    fake.failNext("POST /channels/:channel/messages", { status: 429, retryAfter: 60 });
    const err = await adapter.send({ chatId: OWNER_DM }, { markdown: "later" }).catch((e) => e);
    expect(err.code).toBe("discord_api_error");
    expect(err.data).toMatchObject({ status: 429, retryAfter: 60 });
    expect(err.message).toBe("Discord rate-limited sending a message; retry after 60 s");
    expect(fake.callsOf("POST /channels/:channel/messages").map((c) => c.status)).toEqual([429]);
  });

  test("a guest's tap is refused ephemerally and never reaches the gateway; a stray component is just acknowledged", async () => {
    const { fake, adapter, next, inbox } = await started();
    const messageId = await approvalIn(fake, adapter, next);
    const guestTap = fake.tap({ messageId, customId: "grant:AB12CD34", user: GUEST });
    const refused = await fake.waitForCall(CALLBACK, (c) => c.params.interaction === guestTap.id);
    expect(refused.body).toEqual({ type: 4, data: { content: REFUSAL, flags: 64 } });
    const stray = fake.tap({ messageId, customId: "something-else", user: OWNER });
    const acked = await fake.waitForCall(CALLBACK, (c) => c.params.interaction === stray.id);
    expect(acked.body).toEqual({ type: 6 });
    expect(acked.status).toBe(204);
    expect(inbox).toEqual([]);
    expect(fake.messages.get(messageId)!.components).toHaveLength(1);
  });

  test("the owner's tap: /confirm with the tap; left unanswered it is deferred before 3 s, and answering removes the buttons", async () => {
    const { fake, adapter, next } = await started();
    const messageId = await approvalIn(fake, adapter, next);
    const tap = fake.tap({ messageId, customId: "deny:AB12CD34", user: OWNER });
    const message = await next();
    expect(message).toMatchObject({
      id: `interaction-${tap.id}`,
      chatId: OWNER_DM,
      senderId: OWNER.id,
      text: "/deny AB12CD34",
      tap: { id: tap.id, messageId },
    });
    // Nothing answers it in time: the adapter defers, so Discord keeps the interaction alive.
    const deferred = await fake.waitForCall(CALLBACK, (c) => c.params.interaction === tap.id);
    expect(deferred.body).toEqual({ type: 6 });
    expect(deferred.sinceDispatchMs!).toBeLessThan(3000);
    await adapter.answerTap!(tap.id, { chatId: OWNER_DM }, messageId);
    const edit = fake.callsOf("PATCH /webhooks/:application/:token/messages/@original")[0]!;
    expect(edit.status).toBe(200);
    expect(edit.body).toEqual({ components: [] });
    expect(fake.messages.get(messageId)!.components).toEqual([]);
  });

  test("check(): the bot, or why not; start() refuses a bot_user_id that is not the token's bot", async () => {
    const fake = await startFakeDiscord();
    defer(() => fake.close());
    expect(await channelFor(fake).adapter.check()).toEqual({ ok: true, detail: `bot fermix-test (id ${fake.bot.id})` });
    const wrong = channelFor(fake, { bot_user_id: "999999999999999999" }).adapter;
    expect(await wrong.check()).toMatchObject({
      ok: false,
      fix: expect.stringContaining(`bot_user_id = "${fake.bot.id}"`),
    });
    const err = await wrong.start(() => {}).catch((e) => e);
    expect(err.code).toBe("discord_not_configured");
    expect(fake.gateway.frames).toHaveLength(0);
    const revoked = channelFor(fake, {
      bot_token: "MTExMTExMTExMTExMTExMTEx.Grevok.revoked_token_revoked_token_revoked",
    });
    expect(await revoked.adapter.check()).toMatchObject({
      ok: false,
      detail: "Discord refused the bot token (HTTP 401)",
    });
  });

  test("the Message Content intent turned off in the portal: the channel is degraded with what to turn on", async () => {
    const fake = await startFakeDiscord({ messageContentIntent: false });
    defer(() => fake.close());
    const { adapter, nextError } = channelFor(fake);
    const logged = nextError();
    await adapter.start(() => {});
    defer(() => adapter.stop());
    expect(await logged).toContain("MESSAGE CONTENT INTENT");
    expect(fake.gateway.refusals.map((r) => r.code)).toEqual([4014]);
    const health = adapter.health();
    expect(health.connected).toBe(false);
    expect(health.degraded).toStartWith("Discord refused the Message Content intent (close code 4014)");
  });
});

describe("downloading an attachment", () => {
  test("only Discord's CDN (or the configured test endpoint's origin), and never past the cap", async () => {
    const fake = await startFakeDiscord();
    defer(() => fake.close());
    const attachment = fake.addAttachment(new Uint8Array(64), { filename: "a.png", contentType: "image/png" });
    const fetcher = createAttachmentFetcher({ extraOrigin: new URL(fake.baseUrl).origin });
    expect((await fetcher(attachment.url, 64, 1024)).byteLength).toBe(64);
    const capped = await fetcher(attachment.url, undefined, 10).catch((e) => e);
    expect(capped.code).toBe("discord_file_too_large");
    const declared = await fetcher(attachment.url, 5000, 1024).catch((e) => e);
    expect(declared.code).toBe("discord_file_too_large");
    const elsewhere = await createAttachmentFetcher({})(attachment.url, 64, 1024).catch((e) => e);
    expect(elsewhere.message).toBe("the attachment is not on Discord's CDN; refusing to fetch it");
    const http = await createAttachmentFetcher({})("http://cdn.discordapp.com/x.png", 1, 1024).catch((e) => e);
    expect(http.code).toBe("discord_download_failed");
  });
});
