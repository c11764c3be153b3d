import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import {
  albumPart,
  type FakeTelegram,
  photoMessage,
  startFakeTelegram,
  type TelegramCall,
  textMessage,
  voiceMessage,
} from "../fake/telegram-bot-api.ts";
import { startFakeTranscription } from "../fake/transcription-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * Media on the Telegram channel, end to end through the compiled daemon: voice notes through a fake
 * transcription service, photos and albums into image parts on the fake model, and the chat tools. Everything
 * waits on a call the fakes record; nothing sleeps.
 */

const KEY = "sk-test-telegram-media-0123456789";
const STT_KEY = "sk-test-transcribe-9876543210";
const OWNER = 1001;
const OGG = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 0, 2, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9]);
const jpeg = (n: number) => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, n, n, n, n]);
const defer = cleanupAfterEach();

async function setup(options: { transcription?: boolean; config?: string[] } = {}) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const tg = await startFakeTelegram();
  const stt = await startFakeTranscription({ flavor: "openai", apiKey: STT_KEY, transcript: "remind me to call mum" });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => tg.close());
  defer(() => stt.close());
  h.writeConfig(
    [
      ...(options.transcription === false
        ? []
        : [
            "[fermix_core.transcription]",
            'backend = "openai"',
            `base_url = "${stt.baseUrl}"`,
            `openai_api_key = "${STT_KEY}"`,
          ]),
      "[fermix_channels.telegram]",
      "enabled = true",
      `bot_token = "${tg.token}"`,
      `owner_user_id = ${OWNER}`,
      `api_base_url = "${tg.baseUrl}"`,
      'streaming = "off"',
      ...(options.config ?? []),
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  const polling = tg.waitForCall("getUpdates", (c) => c.params.timeout === 50);
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    expect(daemon.stderr()).not.toContain(STT_KEY);
  });
  await polling;
  return { h, llm, tg, stt, env };
}

function nextReply(tg: FakeTelegram) {
  const mark = tg.calls.length;
  return tg.waitForCall("sendMessage", (c: TelegramCall) => tg.calls.indexOf(c) >= mark && c.params.chat_id === OWNER);
}

/** The user message of the newest model request: its parts as the Responses wire carries them. */
const lastUserParts = (body: any): any[] => body.input.filter((i: any) => i.role === "user").at(-1).content;

describe("Telegram media through the compiled daemon", () => {
  test("a voice note is transcribed by the configured service, then the turn runs on the transcript", async () => {
    const { llm, tg, stt } = await setup();
    llm.setDefault({ kind: "text", text: "I'll remind you." });
    const reply = nextReply(tg);
    const file = tg.addFile(OGG, { path: "voice/file_7.oga" });
    tg.pushUpdate(voiceMessage({ chatId: OWNER, fromId: OWNER, file, caption: "note to self" }));
    expect((await (await reply).answered).parsed!.text).toBe("I'll remind you.");
    expect(stt.requests).toHaveLength(1);
    expect(stt.requests[0]!.headers.authorization).toBe(`Bearer ${STT_KEY}`);
    expect(stt.requests[0]!.fields).toEqual([
      { name: "file", filename: "voice.ogg", type: "audio/ogg", size: OGG.byteLength },
      { name: "model", value: "gpt-4o-mini-transcribe" },
      { name: "response_format", value: "json" },
    ]);
    expect(lastUserParts(llm.requests[0]!.body)).toEqual([
      { type: "input_text", text: "note to self\n\n[voice note transcript]\nremind me to call mum" },
    ]);
  });

  test("without a transcription backend the sender is told to run setup, and no turn runs", async () => {
    const { llm, tg, stt } = await setup({ transcription: false });
    const reply = nextReply(tg);
    tg.pushUpdate(voiceMessage({ chatId: OWNER, fromId: OWNER, file: tg.addFile(OGG) }));
    expect((await (await reply).answered).params.text).toBe(
      "I couldn't transcribe your voice note — no transcription backend is configured. Run <code>fermix setup</code> to add one.",
    );
    expect(llm.requests).toHaveLength(0);
    expect(stt.requests).toHaveLength(0);
  });

  test("a photo reaches the model as an image part ahead of its caption", async () => {
    const { llm, tg } = await setup();
    llm.setDefault({ kind: "text", text: "A pixel." });
    const reply = nextReply(tg);
    tg.pushUpdate(photoMessage({ chatId: OWNER, fromId: OWNER, file: tg.addFile(jpeg(1)), caption: "what is it?" }));
    await (await reply).answered;
    const parts = lastUserParts(llm.requests[0]!.body);
    expect(parts).toEqual([
      {
        type: "input_image",
        image_url: `data:image/jpeg;base64,${Buffer.from(jpeg(1)).toString("base64")}`,
        detail: "auto",
      },
      { type: "input_text", text: "what is it?" },
    ]);
  });

  test("an album of three photos is one turn with three image parts and the captions joined", async () => {
    const { llm, tg } = await setup({ config: ["album_debounce_ms = 200"] });
    llm.setDefault({ kind: "text", text: "Three pictures." });
    const reply = nextReply(tg);
    const group = "13579246810";
    tg.pushUpdate(
      albumPart({ chatId: OWNER, fromId: OWNER, file: tg.addFile(jpeg(1)), mediaGroupId: group, caption: "our trip" }),
      albumPart({ chatId: OWNER, fromId: OWNER, file: tg.addFile(jpeg(2)), mediaGroupId: group }),
      albumPart({ chatId: OWNER, fromId: OWNER, file: tg.addFile(jpeg(3)), mediaGroupId: group, caption: "day two" }),
    );
    expect((await (await reply).answered).parsed!.text).toBe("Three pictures.");
    expect(llm.requests).toHaveLength(1);
    const parts = lastUserParts(llm.requests[0]!.body);
    expect(parts.map((p) => p.type)).toEqual(["input_image", "input_image", "input_image", "input_text"]);
    expect(parts.slice(0, 3).map((p) => Buffer.from(p.image_url.split(",")[1], "base64")[10])).toEqual([1, 2, 3]);
    expect(parts[3].text).toBe("our trip\nday two");
    expect(tg.callsOf("sendMessage")).toHaveLength(1);
  });

  test("the chat tools are offered in a channel turn (not to `fermix ask`), and a lone reaction is the whole answer", async () => {
    const { llm, tg, env } = await setup();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "react", arguments: { emoji: "👍" } }] });
    const reacted = tg.waitForCall("setMessageReaction");
    const id = tg.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "thanks, that's all" }))[0]!.message
      .message_id;
    expect((await (await reacted).answered).params).toMatchObject({
      chat_id: OWNER,
      message_id: id,
      reaction: [{ type: "emoji", emoji: "👍" }],
    });
    const offered = (i: number): string[] => (llm.requests[i]!.body.tools ?? []).map((t: { name: string }) => t.name);
    expect(offered(0)).toEqual(expect.arrayContaining(["send_attachment", "react"]));
    const react = llm.requests[0]!.body.tools.find((t: { name: string }) => t.name === "react");
    expect(react.parameters.properties.emoji.enum).toContain("👍");

    llm.enqueue({ kind: "text", text: "pong" });
    const cli = await runFermix(["ask", "ping"], { env });
    expect(cli.stdout).toContain("pong");
    expect(offered(llm.requests.length - 1)).not.toContain("react");
    expect(offered(llm.requests.length - 1)).not.toContain("send_attachment");
    // The reaction ended the channel turn: one model call, no text bubble.
    expect(llm.requests).toHaveLength(2);
    expect(tg.callsOf("sendMessage")).toHaveLength(0);
  });
});
