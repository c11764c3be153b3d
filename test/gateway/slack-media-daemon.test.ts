import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { type FakeSlack, type SlackFile, startFakeSlack } from "../fake/slack-api.ts";
import { startFakeTranscription } from "../fake/transcription-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * Media on the Slack channel through the compiled daemon: files shared in a DM are downloaded from their
 * url_private with the bot token (the fake redirects anyone else to its sign-in page), pictures reach the model as
 * image parts, audio clips go through a fake transcription service first, and a file fermix sends goes through
 * Slack's external upload flow. Everything waits on a call the fakes record; nothing sleeps.
 */

const KEY = "sk-test-slack-media-0123456789";
const STT_KEY = "sk-test-transcribe-9876543210";
const OWNER = "U0OWNER001";
const WEBM = new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 1, 0x42, 0xf7, 0x81, 1]);
const jpeg = (n: number) => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, n, n, n, n]);
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const slack = await startFakeSlack();
  const stt = await startFakeTranscription({ flavor: "openai", apiKey: STT_KEY, transcript: "remind me to call mum" });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => slack.close());
  defer(() => stt.close());
  h.writeConfig(
    [
      "[fermix_core.transcription]",
      'backend = "openai"',
      `base_url = "${stt.baseUrl}"`,
      `openai_api_key = "${STT_KEY}"`,
      "[fermix_channels.slack]",
      "enabled = true",
      `bot_token = "${slack.botToken}"`,
      `app_token = "${slack.appToken}"`,
      `owner_user_id = "${OWNER}"`,
      `api_base_url = "${slack.apiUrl}"`,
      'streaming = "off"',
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    expect(daemon.stderr()).not.toContain(STT_KEY);
    expect(daemon.stderr()).not.toContain(slack.botToken);
  });
  await slack.waitForHello();
  return { llm, slack, stt };
}

/** The owner shares files in their DM; resolves with the event once the daemon acknowledged it. */
async function shared(slack: FakeSlack, files: SlackFile[], text = "") {
  const event = slack.message({ user: OWNER, text, files });
  await (await slack.sendEvent(event)).acked;
  return event;
}

function nextPost(slack: FakeSlack) {
  const mark = slack.calls.length;
  return slack.waitForCall(
    "chat.postMessage",
    (c) => slack.calls.indexOf(c) >= mark && c.params.channel === slack.dm(OWNER),
  );
}

/** The user message of the newest model request: its parts as the Responses wire carries them. */
const lastUserParts = (body: any): any[] => body.input.filter((i: any) => i.role === "user").at(-1).content;

describe("Slack media through the compiled daemon", () => {
  test("two pictures in one message reach the model as image parts ahead of the text", async () => {
    const { llm, slack } = await setup();
    llm.setDefault({ kind: "text", text: "Two pixels." });
    const reply = nextPost(slack);
    const files = [
      slack.addFile(jpeg(1), { name: "one.jpg", mimetype: "image/jpeg", filetype: "jpg" }),
      slack.addFile(jpeg(2), { name: "two.jpg", mimetype: "image/jpeg", filetype: "jpg" }),
    ];
    await shared(slack, files, "what are these?");
    expect((await reply).params.text).toBe("Two pixels.");
    expect(lastUserParts(llm.requests[0]!.body)).toEqual([
      {
        type: "input_image",
        image_url: `data:image/jpeg;base64,${Buffer.from(jpeg(1)).toString("base64")}`,
        detail: "auto",
      },
      {
        type: "input_image",
        image_url: `data:image/jpeg;base64,${Buffer.from(jpeg(2)).toString("base64")}`,
        detail: "auto",
      },
      { type: "input_text", text: "what are these?" },
    ]);
  });

  test("an audio clip is downloaded, transcribed by the configured service, and the turn runs on the transcript", async () => {
    const { llm, slack, stt } = await setup();
    llm.setDefault({ kind: "text", text: "I'll remind you." });
    const reply = nextPost(slack);
    const clip = slack.addFile(WEBM, {
      name: "audio_message.webm",
      mimetype: "audio/webm",
      filetype: "webm",
      subtype: "slack_audio",
    });
    await shared(slack, [clip], "note to self");
    expect((await reply).params.text).toBe("I'll remind you.");
    expect(stt.requests).toHaveLength(1);
    // The clip as Slack served it to the bot token, under its own name.
    expect(stt.requests[0]!.fields[0]).toMatchObject({
      name: "file",
      filename: "audio_message.webm",
      size: WEBM.byteLength,
    });
    expect(lastUserParts(llm.requests[0]!.body)).toEqual([
      { type: "input_text", text: "note to self\n\n[voice note transcript]\nremind me to call mum" },
    ]);
  });

  test("a file the model sends goes up through the external upload flow into the chat", async () => {
    const { llm, slack } = await setup();
    // send_attachment reads from the sandbox's workspace; the model writes the file first.
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "file_write", arguments: { path: "report.txt", content: "all good\n" } }] },
      {
        kind: "tool_calls",
        calls: [{ name: "send_attachment", arguments: { path: "report.txt", caption: "The **report**" } }],
      },
      { kind: "text", text: "Sent." },
    );
    const completed = slack.waitForCall("files.completeUploadExternal");
    const reply = nextPost(slack);
    const event = slack.message({ user: OWNER, text: "send me the report" });
    await (await slack.sendEvent(event)).acked;
    const done = await completed;
    expect(done.answer.ok).toBe(true);
    expect(done.params).toMatchObject({ channel_id: event.channel, initial_comment: "The *report*" });
    const [upload] = slack.uploads;
    expect(new TextDecoder().decode(upload!.bytes)).toBe("all good\n");
    expect(upload!.length).toBe(upload!.bytes!.byteLength);
    expect((await reply).params.text).toBe("Sent.");
  });
});
