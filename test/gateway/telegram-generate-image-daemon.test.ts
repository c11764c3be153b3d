import { describe, expect, test } from "bun:test";
import { type FakeImageApi, PNG_PIXEL, startFakeImageApi } from "../fake/image-apis.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { type FakeTelegram, photoMessage, startFakeTelegram, textMessage } from "../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * generate_image in a Telegram turn, end to end through the compiled daemon: the scripted model calls the tool,
 * the fake OpenAI Images API makes the picture (the chat provider's key, the owner's loopback base_url), and the
 * fake Bot API receives it as a photo. Everything waits on a call the fakes record; nothing sleeps.
 */

const KEY = "sk-test-telegram-images-0123456789";
const OWNER = 1001;
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const tg = await startFakeTelegram();
  const images: FakeImageApi = await startFakeImageApi({ flavor: "openai", apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => tg.close());
  defer(() => images.close());
  h.writeConfig(
    [
      "[fermix_core.tools.generate_image]",
      'backend = "openai"',
      `base_url = "${images.baseUrl}"`,
      "[fermix_channels.telegram]",
      "enabled = true",
      `bot_token = "${tg.token}"`,
      `owner_user_id = ${OWNER}`,
      `api_base_url = "${tg.baseUrl}"`,
      'streaming = "off"',
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  const polling = tg.waitForCall("getUpdates", (c) => c.params.timeout === 50);
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    expect(daemon.stderr()).not.toContain(KEY);
  });
  await polling;
  return { h, llm, tg, images };
}

function nextReply(tg: FakeTelegram) {
  const mark = tg.calls.length;
  return tg.waitForCall("sendMessage", (c) => tg.calls.indexOf(c) >= mark && c.params.chat_id === OWNER);
}

/** The generate_image result the model got back in its next request. */
const toolOutput = (body: any): string => body.input.find((i: any) => i.type === "function_call_output")?.output ?? "";

describe("generate_image in a Telegram turn through the compiled daemon", () => {
  test("the model's generate_image call makes a picture that reaches the chat as a photo", async () => {
    const { llm, tg, images, h } = await setup();
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "generate_image", arguments: { prompt: "a red fox in the snow" } }] },
      { kind: "text", text: "Here is your fox." },
    );
    const photo = tg.waitForCall("sendPhoto");
    const reply = nextReply(tg);
    tg.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "draw me a fox" }));

    const sent = await (await photo).answered;
    expect(sent.params.chat_id).toBe(String(OWNER));
    expect(sent.files.photo!.type).toBe("image/png");
    expect(sent.files.photo!.filename).toMatch(/^image-[0-9a-f]{12}\.png$/);
    expect(sent.files.photo!.bytes).toEqual(PNG_PIXEL);
    expect((await (await reply).answered).parsed!.text).toBe("Here is your fox.");

    expect(images.requests).toHaveLength(1);
    expect(images.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(images.requests[0]!.json).toEqual({ model: "gpt-image-2", prompt: "a red fox in the snow", n: 1 });
    const output = toolOutput(llm.requests[1]!.body);
    expect(output).toContain(`saved it to ${h.home}/workspace/media/${sent.files.photo!.filename}`);
    expect(output).toContain("it was sent to this chat.");
  });

  test("inbound:last edits the photo the owner sent in an earlier message", async () => {
    const { llm, tg, images } = await setup();
    llm.enqueue({ kind: "text", text: "Nice picture." });
    const first = nextReply(tg);
    tg.pushUpdate(photoMessage({ chatId: OWNER, fromId: OWNER, file: tg.addFile(PNG_PIXEL) }));
    await (await first).answered;

    llm.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "generate_image", arguments: { prompt: "give it a hat", input_image: "inbound:last" } }],
      },
      { kind: "text", text: "Hat added." },
    );
    const photo = tg.waitForCall("sendPhoto");
    const second = nextReply(tg);
    tg.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "now give it a hat" }));
    expect((await (await photo).answered).files.photo!.bytes).toEqual(PNG_PIXEL);
    expect((await (await second).answered).parsed!.text).toBe("Hat added.");

    const edit = images.requests[0]!;
    expect(edit.path).toBe("/v1/images/edits");
    expect(edit.files.map((f) => [f.name, f.type, f.bytes])).toEqual([["image", "image/png", PNG_PIXEL]]);
    expect(edit.fields).toContainEqual({ name: "prompt", value: "give it a hat" });
  });
});
