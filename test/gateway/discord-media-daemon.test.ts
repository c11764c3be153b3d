import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DiscordCall, type FakeDiscord, type FakeUser, startFakeDiscord } from "../fake/discord-api.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeTranscription } from "../fake/transcription-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * Media on the Discord channel, end to end through the compiled daemon: a voice message through a fake
 * transcription service, an image attachment into an image part on the fake model, a reaction and a file sent back.
 * Attachments come from the fake's CDN. Everything waits on a call the fakes record; nothing sleeps.
 */

const KEY = "sk-test-discord-media-0123456789";
const STT_KEY = "sk-test-transcribe-9876543210";
const OWNER: FakeUser = { id: "111111111111111111", username: "owner" };
const OWNER_DM = "711111111111111111";
const SEND = "POST /channels/:channel/messages";
const OGG = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 0, 2, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9]);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const VOICE_MESSAGE = 1 << 13;
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const dc = await startFakeDiscord();
  const stt = await startFakeTranscription({ flavor: "openai", apiKey: STT_KEY, transcript: "remind me to call mum" });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => dc.close());
  defer(() => stt.close());
  h.writeConfig(
    [
      "[fermix_core.transcription]",
      'backend = "openai"',
      `base_url = "${stt.baseUrl}"`,
      `openai_api_key = "${STT_KEY}"`,
      "[fermix_channels.discord]",
      "enabled = true",
      `bot_token = "${dc.token}"`,
      `owner_user_id = "${OWNER.id}"`,
      `api_base_url = "${dc.baseUrl}"`,
      'streaming = "off"',
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    expect(daemon.stderr()).not.toContain(dc.token);
    expect(daemon.stderr()).not.toContain(STT_KEY);
  });
  await dc.waitForSession();
  return { h, llm, dc, stt };
}

function nextReply(dc: FakeDiscord, predicate: (c: DiscordCall) => boolean = () => true) {
  const mark = dc.calls.length;
  return dc.waitForCall(SEND, (c) => dc.calls.indexOf(c) >= mark && c.status === 200 && predicate(c));
}

/** The user message of the newest model request: its parts as the Responses wire carries them. */
const lastUserParts = (body: any): any[] => body.input.filter((i: any) => i.role === "user").at(-1).content;

describe("Discord media through the compiled daemon", () => {
  test("a voice message is downloaded from the CDN, transcribed, and the turn runs on the transcript", async () => {
    const { llm, dc, stt } = await setup();
    llm.setDefault({ kind: "text", text: "I'll remind you." });
    const reply = nextReply(dc);
    const voice = dc.addAttachment(OGG, { filename: "voice-message.ogg", contentType: "audio/ogg" });
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, attachments: [voice], flags: VOICE_MESSAGE });
    expect((await reply).body.content).toBe("I'll remind you.");
    expect(stt.requests).toHaveLength(1);
    expect(stt.requests[0]!.fields[0]).toEqual({
      name: "file",
      filename: "voice-message.ogg",
      type: "audio/ogg",
      size: OGG.byteLength,
    });
    expect(lastUserParts(llm.requests[0]!.body)).toEqual([{ type: "input_text", text: "remind me to call mum" }]);
  });

  test("an image attachment reaches the model as an image part ahead of the text", async () => {
    const { llm, dc } = await setup();
    llm.setDefault({ kind: "text", text: "A tiny PNG." });
    const reply = nextReply(dc);
    const image = dc.addAttachment(PNG, { filename: "shot.png", contentType: "image/png" });
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "what is it?", attachments: [image] });
    await reply;
    expect(lastUserParts(llm.requests[0]!.body)).toEqual([
      {
        type: "input_image",
        image_url: `data:image/png;base64,${Buffer.from(PNG).toString("base64")}`,
        detail: "auto",
      },
      { type: "input_text", text: "what is it?" },
    ]);
  });

  test("a lone reaction is the whole answer: PUT …/reactions/👍/@me on the owner's message, no text", async () => {
    const { llm, dc } = await setup();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "react", arguments: { emoji: "👍" } }] });
    const reacted = dc.waitForCall("PUT /channels/:channel/messages/:message/reactions/:emoji/@me");
    const said = dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "thanks, that's all" });
    const call = await (await reacted).answered;
    expect(call.status).toBe(204);
    expect(call.params).toEqual({ channel: OWNER_DM, message: said.id, emoji: encodeURIComponent("👍") });
    expect(dc.messages.get(said.id)!.reactions).toEqual(["👍"]);
    const react = llm.requests[0]!.body.tools.find((t: { name: string }) => t.name === "react");
    expect(react.parameters.properties.emoji.type).toBe("string");
    expect(llm.requests).toHaveLength(1);
    expect(dc.callsOf(SEND)).toHaveLength(0);
  });

  test("send_attachment uploads the file as multipart files[0] with its caption, then the answer follows", async () => {
    const { h, llm, dc } = await setup();
    const workspace = join(h.home, "workspace");
    mkdirSync(workspace, { recursive: true });
    const report = join(workspace, "report.txt");
    writeFileSync(report, "quarterly numbers\n");
    llm.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "send_attachment", arguments: { path: report, caption: "The report @everyone" } }],
      },
      { kind: "text", text: "Sent it." },
    );
    const file = nextReply(dc, (c) => c.files.length > 0);
    const answer = nextReply(dc, (c) => c.body.content === "Sent it.");
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "send me the report" });
    const upload = await file;
    expect(upload.files).toEqual([
      {
        field: "files[0]",
        filename: "report.txt",
        type: expect.stringMatching(/^text\/plain/),
        bytes: new TextEncoder().encode("quarterly numbers\n"),
      },
    ]);
    expect(upload.body).toEqual({
      content: "The report @everyone",
      allowed_mentions: { parse: [], replied_user: false },
      attachments: [{ id: 0, filename: "report.txt" }],
    });
    await answer;
  });
});
