import { describe, expect, test } from "bun:test";
import { parseTelegramHtml, startFakeTelegram, textMessage } from "../../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";

/* The fake must refuse what Telegram refuses, with Telegram's words, or the adapter's tests prove nothing. */

const defer = cleanupAfterEach();

async function fake() {
  const tg = await startFakeTelegram();
  defer(() => tg.close());
  const call = async (method: string, params: Record<string, unknown> = {}, token = tg.token) => {
    const response = await fetch(`${tg.baseUrl}/bot${token}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(params),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  return { tg, call };
}

describe("the fake Bot API", () => {
  test("tokens and methods: 404 for a path Telegram does not serve, 401 for another bot's token", async () => {
    const { call } = await fake();
    expect(await call("getMe", {}, "bot-prefixed")).toEqual({
      status: 404,
      body: { ok: false, error_code: 404, description: "Not Found" },
    });
    expect(await call("getMe", {}, "111:AAAnotTheRightOne")).toEqual({
      status: 401,
      body: { ok: false, error_code: 401, description: "Unauthorized" },
    });
    expect((await call("sendSticker")).body).toEqual({ ok: false, error_code: 404, description: "Not Found" });
    expect((await call("getme")).body.result.username).toBe("fermix_test_bot");
  });

  test("sendMessage: unknown chats, empty text, bad HTML, long text, bad buttons are refused as Telegram refuses them", async () => {
    const { tg, call } = await fake();
    expect((await call("sendMessage", { chat_id: 42, text: "hi" })).body.description).toBe(
      "Bad Request: chat not found",
    );
    tg.pushUpdate(textMessage({ chatId: 42, fromId: 42, text: "hello" }));
    expect((await call("sendMessage", { chat_id: 42, text: " " })).body.description).toBe(
      "Bad Request: message text is empty",
    );
    expect((await call("sendMessage", { chat_id: 42, text: "a<br>b", parse_mode: "HTML" })).body.description).toBe(
      'Bad Request: can\'t parse entities: Unsupported start tag "br" at byte offset 1',
    );
    expect((await call("sendMessage", { chat_id: 42, text: "x".repeat(4097) })).body.description).toBe(
      "Bad Request: message is too long",
    );
    const markup = { inline_keyboard: [[{ text: "go", callback_data: "x".repeat(65) }]] };
    expect((await call("sendMessage", { chat_id: 42, text: "hi", reply_markup: markup })).body.description).toBe(
      "Bad Request: BUTTON_DATA_INVALID",
    );
    const ok = await call("sendMessage", { chat_id: 42, text: "<b>hi</b> &amp; bye", parse_mode: "HTML" });
    expect(ok.body.result.text).toBe("hi & bye");
  });

  test("reactions from Telegram's set only; a callback query is answered once", async () => {
    const { tg, call } = await fake();
    const [update] = tg.pushUpdate(textMessage({ chatId: 42, fromId: 42, text: "hello" }));
    const id = update!.message.message_id;
    const react = (emoji: string) =>
      call("setMessageReaction", { chat_id: 42, message_id: id, reaction: [{ type: "emoji", emoji }] });
    expect((await react("👍")).body).toEqual({ ok: true, result: true });
    expect((await react("🦜")).body.description).toBe("Bad Request: REACTION_INVALID");
    expect((await call("answerCallbackQuery", { callback_query_id: "nope" })).body.description).toBe(
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
  });

  test("Telegram's HTML: its tags nested properly, its four entities, a bare & as text", () => {
    expect(parseTelegramHtml('<b>a <i>b</i></b> <a href="https://x.y/?a=1&amp;b=2">l</a> &lt;&gt;&quot; & x')).toEqual({
      text: 'a b l <>" & x',
      entities: 3,
    });
    expect(parseTelegramHtml('<pre><code class="language-ts">x</code></pre>')).toEqual({ text: "x", entities: 1 });
    expect(parseTelegramHtml("<b>a<i>b</b></i>")).toEqual({
      error: 'Unmatched end tag at byte offset 8, expected "</i>", found "</b>"',
    });
    expect(parseTelegramHtml("<b>open")).toEqual({ error: 'Can\'t find end tag corresponding to start tag "b"' });
    expect(parseTelegramHtml("a < b")).toEqual({ error: 'Unsupported start tag "" at byte offset 2' });
    expect(parseTelegramHtml("é</b>")).toEqual({ error: "Unexpected end tag at byte offset 2" });
  });
});
