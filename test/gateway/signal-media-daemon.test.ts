import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { type FakeSignalCli, type SignalCall, startFakeSignalCli } from "../fake/signal-cli.ts";
import { startFakeTranscription } from "../fake/transcription-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * Media on the Signal channel through the compiled daemon: attachments signal-cli stored under its data directory
 * reach the model as image parts or transcripts, and send_attachment goes out as a data URI. Nothing sleeps.
 */

const KEY = "sk-test-signal-media-0123456789";
const STT_KEY = "sk-test-signal-transcribe-987654";
const ACCOUNT = "+15550000001";
const OWNER = "+15551110001";
const AAC = new Uint8Array([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc, 1, 2, 3, 4, 5]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 7, 7, 7, 7]);
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const signal = await startFakeSignalCli({ account: ACCOUNT });
  const stt = await startFakeTranscription({ flavor: "openai", apiKey: STT_KEY, transcript: "buy oat milk" });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => signal.close());
  defer(() => stt.close());
  h.writeConfig(
    [
      "[fermix_core.transcription]",
      'backend = "openai"',
      `base_url = "${stt.baseUrl}"`,
      `openai_api_key = "${STT_KEY}"`,
      "",
      "[fermix_channels.signal]",
      "enabled = true",
      `account = "${ACCOUNT}"`,
      `cli_path = "${signal.cliPath}"`,
      `owner_user_id = "${OWNER}"`,
      'streaming = "off"',
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    expect(daemon.stderr()).not.toContain(STT_KEY);
  });
  await signal.waitForStart(1);
  await signal.waitForCall("version");
  return { h, llm, signal, stt };
}

function nextSend(signal: FakeSignalCli, predicate: (c: SignalCall) => boolean = () => true) {
  const mark = signal.calls.length;
  return signal.waitForCall("send", (c) => signal.calls.indexOf(c) >= mark && predicate(c));
}

/** The user message of the newest model request: its parts as the Responses wire carries them. */
const lastUserParts = (body: any): any[] => body.input.filter((i: any) => i.role === "user").at(-1).content;

describe("Signal media through the compiled daemon", () => {
  test("a photo signal-cli stored in its data directory reaches the model as an image part with its caption", async () => {
    const { llm, signal } = await setup();
    llm.setDefault({ kind: "text", text: "A tiny picture." });
    const reply = nextSend(signal);
    signal.receive({
      from: OWNER,
      text: "what is this?",
      attachments: [{ contentType: "image/jpeg", bytes: JPEG, filename: "IMG_0001.jpg" }],
    });
    expect((await reply).params.message).toBe("A tiny picture.");
    // Where signal-cli keeps it when neither --config nor XDG_DATA_HOME says otherwise.
    expect(existsSync(join(signal.starts[0]!.dataDir, "attachments", "fakeAttachment1.jpg"))).toBe(true);
    expect(signal.starts[0]!.dataDir).toEndWith(join(".local", "share", "signal-cli"));
    expect(lastUserParts(llm.requests[0]!.body)).toEqual([
      {
        type: "input_image",
        image_url: `data:image/jpeg;base64,${Buffer.from(JPEG).toString("base64")}`,
        detail: "auto",
      },
      { type: "input_text", text: "what is this?" },
    ]);
  });

  test("a voice note is transcribed, then the turn runs on the transcript", async () => {
    const { llm, signal, stt } = await setup();
    llm.setDefault({ kind: "text", text: "Added to the list." });
    const reply = nextSend(signal);
    // Signal's apps record voice notes as AAC with no file name.
    signal.receive({ from: OWNER, attachments: [{ contentType: "audio/aac", bytes: AAC }] });
    expect((await reply).params.message).toBe("Added to the list.");
    expect(stt.requests).toHaveLength(1);
    // No file name: one with the extension OpenAI reads the format from.
    expect(stt.requests[0]!.fields[0]).toMatchObject({ name: "file", filename: "voice.m4a", size: AAC.byteLength });
    expect(lastUserParts(llm.requests[0]!.body)).toEqual([{ type: "input_text", text: "buy oat milk" }]);
  });

  test("send_attachment goes out as a data URI with its file name and caption; the answer follows", async () => {
    const { h, llm, signal } = await setup();
    const workspace = join(h.home, "workspace");
    mkdirSync(workspace, { recursive: true });
    const report = join(workspace, "report; Q3.txt");
    writeFileSync(report, "quarterly numbers\n");
    llm.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "send_attachment", arguments: { path: report, caption: "The **report**" } }],
      },
      { kind: "text", text: "Sent it." },
    );
    const file = nextSend(signal, (c) => c.files.length > 0);
    const answer = nextSend(signal, (c) => c.params.message === "Sent it.");
    signal.receive({ from: OWNER, text: "send me the report" });
    const upload = await file;
    expect(upload.error).toBeUndefined();
    expect(upload.params.message).toBe("The report");
    expect(upload.params.recipient).toEqual([OWNER]);
    expect(upload.files).toEqual([
      {
        mime: expect.stringMatching(/^text\/plain/),
        filename: "report; Q3.txt",
        bytes: new TextEncoder().encode("quarterly numbers\n"),
      },
    ]);
    await answer;
  });
});
