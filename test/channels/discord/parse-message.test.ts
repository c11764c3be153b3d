import { describe, expect, test } from "bun:test";
import { MAX_DISCORD_FILE_BYTES, parseMessage } from "../../../src/channels/discord/parse-message.ts";

const BOT = "123456789012345678";
const OWNER = { id: "111111111111111111", username: "owner", global_name: "The Owner" };
const fetched: Array<{ url: string; declared: number | undefined; max: number }> = [];
const fetcher = async (url: string, declared: number | undefined, max: number) => {
  fetched.push({ url, declared, max });
  return new Uint8Array([1, 2, 3]);
};

function message(over: Record<string, unknown> = {}) {
  return {
    id: "1300000000000000001",
    channel_id: "711111111111111111",
    author: OWNER,
    content: "hello",
    type: 0,
    flags: 0,
    mentions: [],
    attachments: [],
    timestamp: "2026-12-01T12:00:00.000Z",
    ...over,
  };
}
const inGuild = (over: Record<string, unknown> = {}) =>
  message({ guild_id: "900000000000000001", channel_id: "910000000000000001", ...over });

describe("which Discord messages reach the gateway", () => {
  test("a DM, with the sender Discord authenticated and their display name", () => {
    const event = message();
    expect(parseMessage(event, BOT, fetcher)).toEqual({
      id: "1300000000000000001",
      channel: "discord",
      chatId: "711111111111111111",
      senderId: OWNER.id,
      senderName: "The Owner",
      text: "hello",
      attachments: [],
      chatType: "private",
      // The event itself, kept in memory.db to revive the message after a restart.
      raw: event,
    });
  });

  test("in a server only a mention counts; <@id> and <@!id> are stripped, a reply to the bot counts too", () => {
    expect(parseMessage(inGuild({ content: "talking among ourselves" }), BOT, fetcher)).toBeUndefined();
    const tagged = parseMessage(inGuild({ content: `<@${BOT}> what's up?` }), BOT, fetcher);
    expect(tagged).toMatchObject({ text: "what's up?", chatType: "group", chatId: "910000000000000001" });
    expect(parseMessage(inGuild({ content: `hey <@!${BOT}>  there` }), BOT, fetcher)?.text).toBe("hey  there");
    const reply = parseMessage(inGuild({ content: "and this?", mentions: [{ id: BOT }], type: 19 }), BOT, fetcher);
    expect(reply?.text).toBe("and this?");
    // Someone else's mention is not the bot's.
    expect(
      parseMessage(
        inGuild({ content: "<@999999999999999999> hi", mentions: [{ id: "999999999999999999" }] }),
        BOT,
        fetcher,
      ),
    ).toBeUndefined();
  });

  test("bots (fermix itself included), webhooks and system messages are never answered", () => {
    expect(parseMessage(message({ author: { id: "444", username: "b", bot: true } }), BOT, fetcher)).toBeUndefined();
    expect(parseMessage(message({ author: { id: BOT, username: "fermix" } }), BOT, fetcher)).toBeUndefined();
    expect(parseMessage(message({ webhook_id: "555" }), BOT, fetcher)).toBeUndefined();
    expect(parseMessage(message({ type: 7 }), BOT, fetcher)).toBeUndefined();
    expect(parseMessage({ id: "x" }, BOT, fetcher)).toBeUndefined();
  });

  test("attachments: a voice message is speech to transcribe; images, audio, video and files by their type", async () => {
    const attachment = (filename: string, content_type?: string, size = 10) => ({
      id: "1300000000000000009",
      filename,
      size,
      url: `https://cdn.discordapp.com/attachments/1/2/${filename}`,
      proxy_url: "https://media.discordapp.net/x",
      ...(content_type ? { content_type } : {}),
    });
    const voice = parseMessage(
      message({ content: "", flags: 1 << 13, attachments: [attachment("voice-message.ogg", "audio/ogg")] }),
      BOT,
      fetcher,
    )!;
    expect(voice.attachments[0]).toMatchObject({
      kind: "audio",
      mime: "audio/ogg",
      transcribe: true,
      filename: "voice-message.ogg",
    });
    const mixed = parseMessage(
      message({
        attachments: [
          attachment("shot.PNG"),
          attachment("memo.m4a", "audio/mp4"),
          attachment("clip.mp4", "video/mp4"),
          attachment("notes.pdf", "application/pdf; charset=binary"),
          attachment("blob.bin"),
        ],
      }),
      BOT,
      fetcher,
    )!;
    expect(mixed.attachments.map((a) => [a.kind, a.mime, a.transcribe ?? false])).toEqual([
      ["image", "image/png", false],
      ["audio", "audio/mp4", true],
      ["video", "video/mp4", false],
      ["document", "application/pdf", false],
      ["document", "application/octet-stream", false],
    ]);
    // A download is capped at 10 MB whatever the gateway allows.
    await mixed.attachments[0]!.download(20 * 1024 * 1024);
    expect(fetched.at(-1)).toEqual({
      url: "https://cdn.discordapp.com/attachments/1/2/shot.PNG",
      declared: 10,
      max: MAX_DISCORD_FILE_BYTES,
    });
  });
});
