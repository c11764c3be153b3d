import { describe, expect, test } from "bun:test";
import { messageKey, parseEvent, plainText } from "../../../src/channels/slack/parse-event.ts";

const BOT = "U0FERMIXBOT";
const noDownload = async () => new Uint8Array();
const dm = (extra: Record<string, unknown> = {}) => ({
  type: "message",
  channel: "D0123",
  channel_type: "im",
  user: "U0OWNER",
  text: "hi",
  ts: "1700000000.000100",
  ...extra,
});

describe("Slack events → gateway messages", () => {
  test("DMs from people and app mentions are read; bots, edits, joins and channel chatter are not", () => {
    expect(parseEvent(dm(), BOT, noDownload)).toMatchObject({
      id: "1700000000.000100",
      chatId: "D0123",
      chatType: "private",
    });
    expect(parseEvent(dm({ subtype: "file_share" }), BOT, noDownload)).toBeDefined();
    for (const skipped of [
      dm({ bot_id: "B01" }),
      dm({ user: BOT }),
      dm({ subtype: "bot_message" }),
      dm({ subtype: "message_changed" }),
      dm({ subtype: "channel_join" }),
      dm({ channel_type: "channel", channel: "C0123" }),
      { type: "reaction_added", user: "U0OWNER", item: {} },
      { type: "app_mention", user: "U0OWNER", channel: "C01", text: "x", ts: "1.2", bot_id: "B01" },
      "not an event",
    ]) {
      expect(parseEvent(skipped, BOT, noDownload)).toBeUndefined();
    }
    const mention = { type: "app_mention", user: "U0OWNER", channel: "C01", text: `<@${BOT}> status?`, ts: "1.2" };
    expect(parseEvent(mention, BOT, noDownload)).toMatchObject({ thread: "1.2", text: "status?", chatType: "group" });
    expect(parseEvent({ ...mention, thread_ts: "1.1" }, BOT, noDownload)?.thread).toBe("1.1");
    // Without the bot's id (auth.test not answered yet), a leading mention is still taken out.
    expect(parseEvent(mention, undefined, noDownload)?.text).toBe("status?");
  });

  test("Slack's markup reads back as what the person typed", () => {
    expect(plainText("a &lt;b&gt; &amp;amp; <https://x.io/a|the link> <https://y.io> <mailto:a@b.c|a@b.c>", BOT)).toBe(
      "a <b> &amp; the link (https://x.io/a) https://y.io a@b.c",
    );
    expect(plainText(`<@${BOT}> ask <@U0OTHER> in <#C0GEN|general> <!here>`, BOT)).toBe(
      "ask @U0OTHER in #general @here",
    );
  });

  test("a message is named by its channel and ts, the same in every event about it", () => {
    expect(messageKey(dm())).toBe("D0123:1700000000.000100");
    expect(messageKey({ type: "x" })).toBeUndefined();
  });

  test("hidden and URL-less files are left out; audio clips are transcribed", () => {
    const files = [
      { id: "F1", mimetype: "image/png", url_private: "https://files.slack.com/a.png", size: 10 },
      { id: "F2", mimetype: "image/png", mode: "hidden_by_limit" },
      {
        id: "F3",
        mimetype: "audio/mp4",
        subtype: "slack_audio",
        url_private_download: "https://files.slack.com/b.m4a",
      },
      { id: "F4", mimetype: "application/pdf", name: "a.pdf", url_private: "https://files.slack.com/a.pdf" },
    ];
    const message = parseEvent(dm({ subtype: "file_share", files }), BOT, noDownload)!;
    expect(message.attachments.map((a) => [a.kind, a.mime, a.transcribe ?? false])).toEqual([
      ["image", "image/png", false],
      ["audio", "audio/mp4", true],
      ["document", "application/pdf", false],
    ]);
  });
});
