import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { type FakeTelegram, startFakeTelegram, textMessage } from "../fake/telegram-bot-api.ts";
import { waText } from "../fake/whatsapp-graph-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { type RunningDaemon, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { startWhatsAppWorld, OWNER as WA_OWNER, waitForWebhooks } from "./_whatsapp-daemon.ts";

/*
 * Issue 26: what the owner sends is stored before anything acknowledges it, and a crash never loses it. The
 * compiled daemon on the strict Telegram fake (and WhatsApp's, for a webhook platform), killed for real.
 */

const KEY = "sk-test-durable-0123456789abcdef";
const OWNER = 1001;
const defer = cleanupAfterEach();

/** Each answer names the message it answers, so one answered twice is plain to see. */
const answerTo = (body: unknown) => {
  const asked = [...JSON.stringify(body).matchAll(/msg-(\d+)/g)].at(-1)?.[1];
  return `answer to msg-${asked}`;
};

async function world(config: string[] = []) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const tg = await startFakeTelegram();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => tg.close());
  llm.setDefault((req) => ({ kind: "text", text: answerTo(req.body.input) }));
  h.writeConfig(
    [
      "[fermix_channels.telegram]",
      "enabled = true",
      `bot_token = "${tg.token}"`,
      `owner_user_id = ${OWNER}`,
      `api_base_url = "${tg.baseUrl}"`,
      'streaming = "off"',
      ...config,
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  const start = async () => {
    const mark = tg.calls.length;
    const polling = tg.waitForCall("getUpdates", (c) => c.params.timeout === 50 && tg.calls.indexOf(c) >= mark);
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    await polling;
    return daemon;
  };
  return { h, llm, tg, env, start };
}

const answers = (tg: FakeTelegram) =>
  tg
    .callsOf("sendMessage")
    .filter((c) => c.params.chat_id === OWNER)
    .map((c) => String(c.params.text));

async function kill9(daemon: RunningDaemon): Promise<void> {
  process.kill(daemon.pid, "SIGKILL");
  await daemon.exited;
}

describe("durable inbound messages (compiled daemon)", () => {
  test("30 messages in under a second, kill -9 after the first answer, restart: all 30 answered, none twice", async () => {
    const { tg, start } = await world();
    const first = await start();
    const firstAnswer = tg.waitForCall("sendMessage", (c) => c.params.chat_id === OWNER);
    const texts = Array.from({ length: 30 }, (_, i) => `msg-${String(i + 1).padStart(2, "0")}`);
    tg.pushUpdate(...texts.map((text) => textMessage({ chatId: OWNER, fromId: OWNER, text })));
    await firstAnswer;
    await kill9(first);
    // Telegram was told they all arrived (the daemon's offset is past them): from here on only memory.db has them.
    const acknowledged = tg.callsOf("getUpdates").at(-1)!.params.offset;
    expect(acknowledged).toBeGreaterThan(0);

    const all = tg.waitForCall("sendMessage", () => answers(tg).length >= 30);
    await start();
    await all;
    const got = answers(tg);
    expect(got.length).toBe(30);
    expect(new Set(got)).toEqual(new Set(texts.map((t) => `answer to ${t}`)));
    // The restarted daemon was never handed them again by Telegram.
    expect(
      tg
        .callsOf("getUpdates")
        .every(
          (c) => c.params.offset === undefined || c.params.offset <= acknowledged || c.answer?.result?.length === 0,
        ),
    ).toBe(true);
  });

  test("a message that waited longer than backlog_max_age_seconds gets the arrived-while-down reply and no turn", async () => {
    const { tg, llm, start } = await world(["backlog_max_age_seconds = 60"]);
    const daemon = await start();
    await daemon.stop();
    const old = Math.floor(Date.now() / 1000) - 3600;
    tg.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "msg-77 from an hour ago", date: old }));
    const late = tg.waitForCall("sendMessage", (c) => c.params.chat_id === OWNER);
    await start();
    const text = String((await late).params.text);
    expect(text).toContain("while fermix was not running");
    expect(text).toContain(new Date(old * 1000).toISOString().slice(0, 16).replace("T", " "));
    expect(llm.requests).toHaveLength(0);
    // A fresh one after it is answered as usual.
    const fresh = tg.waitForCall("sendMessage", (c) => String(c.params.text) === "answer to msg-78");
    tg.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "msg-78" }));
    await fresh;
    expect(llm.requests).toHaveLength(1);
  });

  test("a webhook platform's retry after a restart is one turn", async () => {
    const w = await startWhatsAppWorld(defer);
    w.llm.setDefault((req) => ({ kind: "text", text: answerTo(req.body.input) }));
    const message = waText(WA_OWNER, "msg-05");
    const sent = w.wa.waitForSent(WA_OWNER);
    expect((await w.deliver([message])).status).toBe(200);
    expect((await sent).body.text.body).toBe("answer to msg-05");
    expect(w.llm.requests).toHaveLength(1);
    await kill9(w.daemon);
    const again = await startFermixDaemon(w.env);
    defer(() => again.stop());
    await waitForWebhooks(w.h.home, "listening");
    // Meta never saw the first 200 (or so it thinks): the same delivery again, to the new daemon.
    expect((await w.deliver([message])).status).toBe(200);
    const mark = w.wa.calls.length;
    const next = w.wa.waitForSent(WA_OWNER, mark);
    expect((await w.deliver([waText(WA_OWNER, "msg-06")])).status).toBe(200);
    expect((await next).body.text.body).toBe("answer to msg-06");
    expect(w.llm.requests).toHaveLength(2);
  });
});
