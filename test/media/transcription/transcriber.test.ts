import { afterEach, describe, expect, test } from "bun:test";
import type { InboundAttachment, InboundMessage } from "../../../src/channels/channel.ts";
import type { Config } from "../../../src/config/schema.ts";
import { prepareMessage, TRANSCRIPTION_REPLIES } from "../../../src/gateway/media.ts";
import { createTranscriber } from "../../../src/media/transcription/transcriber.ts";
import {
  type FakeTranscription,
  startFakeTranscription,
  type TranscriptionFlavor,
} from "../../fake/transcription-api.ts";

const KEY = "sk-transcribe-test-0123456789";
const OGG = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 0, 2, 0, 0, 1, 2, 3, 4]);

const open: FakeTranscription[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function fake(flavor: TranscriptionFlavor, opts: { maxBytes?: number; transcript?: string } = {}) {
  const server = await startFakeTranscription({ flavor, apiKey: KEY, transcript: "buy milk", ...opts });
  open.push(server);
  return server;
}

function voice(bytes: Uint8Array = OGG, extra: Partial<InboundAttachment> = {}): InboundAttachment {
  return {
    kind: "audio",
    mime: "audio/ogg",
    size: bytes.byteLength,
    transcribe: true,
    download: async () => bytes,
    ...extra,
  };
}

function message(attachments: InboundAttachment[], text = ""): InboundMessage {
  return { id: "7", channel: "telegram", chatId: "42", senderId: "1", text, attachments };
}

function media(config: Config, env: Record<string, string> = {}) {
  const warnings: string[] = [];
  const transcriber = createTranscriber({
    config: () => config,
    env,
    resolveSecret: (ref) => ref as string,
    fetch,
    log: { warn: (m) => void warnings.push(m) },
  });
  return { deps: transcriber, warnings };
}

const section = (backend: TranscriptionFlavor, baseUrl: string, extra: Record<string, unknown> = {}): Config => ({
  fermix_core: {
    transcription: { backend, base_url: baseUrl, [`${backend}_api_key`]: KEY, ...extra },
  },
});

describe("openai transcription", () => {
  test("posts the file and the model as multipart with the Bearer key; the transcript becomes the text", async () => {
    const server = await fake("openai");
    const { deps } = media(section("openai", server.baseUrl));
    expect(await prepareMessage(message([voice()]), deps)).toEqual({ ok: true, text: "buy milk", images: [] });
    const [sent] = server.requests;
    expect(sent!.path).toBe("/v1/audio/transcriptions");
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.fields).toEqual([
      { name: "file", filename: "voice.ogg", type: "audio/ogg", size: OGG.byteLength },
      { name: "model", value: "gpt-4o-mini-transcribe" },
      { name: "response_format", value: "json" },
    ]);
  });

  test("reuses the OpenAI chat key, or OPENAI_API_KEY, when the section has no key of its own", async () => {
    const server = await fake("openai");
    const fromProvider: Config = {
      fermix_core: {
        transcription: { base_url: server.baseUrl },
        providers: { openai: { api_key: KEY } },
      },
    };
    expect(await prepareMessage(message([voice()]), media(fromProvider).deps)).toMatchObject({ ok: true });
    const fromEnv: Config = { fermix_core: { transcription: { base_url: server.baseUrl } } };
    expect(await prepareMessage(message([voice()]), media(fromEnv, { OPENAI_API_KEY: KEY }).deps)).toMatchObject({
      ok: true,
    });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  });

  test("a caption comes first, the transcript under the delimiter", async () => {
    const server = await fake("openai");
    const prepared = await prepareMessage(
      message([voice()], "from the car"),
      media(section("openai", server.baseUrl)).deps,
    );
    expect(prepared).toEqual({ ok: true, text: "from the car\n\n[voice note transcript]\nbuy milk", images: [] });
  });

  test("a rejected key answers the sender that transcription failed, and the log says why", async () => {
    const server = await fake("openai");
    const { deps, warnings } = media(section("openai", server.baseUrl, { openai_api_key: "sk-wrong-key-000000" }));
    expect(await prepareMessage(message([voice()]), deps)).toEqual({ ok: false, reply: TRANSCRIPTION_REPLIES.failed });
    expect(warnings.join("\n")).toContain("HTTP 401");
    expect(warnings.join("\n")).toContain("Incorrect API key provided");
  });

  test("the service's 413 becomes the too-large reply with its own limit", async () => {
    const server = await fake("openai", { maxBytes: 1024 * 1024 });
    const clip = new Uint8Array(1.5 * 1024 * 1024);
    const prepared = await prepareMessage(message([voice(clip)]), media(section("openai", server.baseUrl)).deps);
    expect(prepared).toEqual({
      ok: false,
      reply: "I couldn't transcribe your voice note — it's 1.5 MB, over the 1 MB limit. Send a shorter clip.",
    });
  });

  test("a 5xx is the failed reply", async () => {
    const server = await fake("openai");
    server.enqueue({ kind: "error", status: 500 });
    const prepared = await prepareMessage(message([voice()]), media(section("openai", server.baseUrl)).deps);
    expect(prepared).toEqual({ ok: false, reply: TRANSCRIPTION_REPLIES.failed });
  });
});

describe("xai transcription", () => {
  test("sends format=true and the file LAST, with no model field", async () => {
    const server = await fake("xai");
    const prepared = await prepareMessage(message([voice()]), media(section("xai", server.baseUrl)).deps);
    expect(prepared).toEqual({ ok: true, text: "buy milk", images: [] });
    const [sent] = server.requests;
    expect(sent!.path).toBe("/v1/stt");
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.fields.map((f) => f.name)).toEqual(["format", "file"]);
    expect(sent!.fields[0]).toEqual({ name: "format", value: "true" });
  });

  test("a Grok OAuth provider does not count as a key: without xai_api_key it is not configured", async () => {
    const server = await fake("xai");
    const config: Config = {
      fermix_core: {
        transcription: { backend: "xai", base_url: server.baseUrl },
        providers: { xai: { auth_mode: "oauth" } },
      },
    };
    const { deps, warnings } = media(config, { XAI_API_KEY: KEY });
    expect(await prepareMessage(message([voice()]), deps)).toEqual({
      ok: false,
      reply: TRANSCRIPTION_REPLIES.notConfigured,
    });
    expect(warnings.join()).toContain("xai_api_key");
    expect(server.requests).toHaveLength(0);
  });

  test("a wrong key (SpaceXAI answers 400) is the failed reply", async () => {
    const server = await fake("xai");
    const { deps, warnings } = media(section("xai", server.baseUrl, { xai_api_key: "xai-wrong-000000000" }));
    expect(await prepareMessage(message([voice()]), deps)).toEqual({ ok: false, reply: TRANSCRIPTION_REPLIES.failed });
    expect(warnings.join()).toContain("Incorrect API key provided");
  });

  test("a 413 without a stated limit is the failed reply", async () => {
    const server = await fake("xai", { maxBytes: 4 });
    const prepared = await prepareMessage(message([voice()]), media(section("xai", server.baseUrl)).deps);
    expect(prepared).toEqual({ ok: false, reply: TRANSCRIPTION_REPLIES.failed });
  });
});

describe("deepgram transcription", () => {
  test("posts the raw audio to /v1/listen with model=nova-3, smart formatting and a Token key", async () => {
    const server = await fake("deepgram");
    const prepared = await prepareMessage(message([voice()]), media(section("deepgram", server.baseUrl)).deps);
    expect(prepared).toEqual({ ok: true, text: "buy milk", images: [] });
    const [sent] = server.requests;
    expect(sent!.path).toBe("/v1/listen");
    expect(sent!.query).toEqual({ model: "nova-3", smart_format: "true" });
    expect(sent!.headers.authorization).toBe(`Token ${KEY}`);
    expect(sent!.headers["content-type"]).toBe("audio/ogg");
    expect(sent!.bodyBytes).toBe(OGG.byteLength);
  });

  test("has no chat key to fall back to: without deepgram_api_key it is not configured", async () => {
    const server = await fake("deepgram");
    const config: Config = { fermix_core: { transcription: { backend: "deepgram", base_url: server.baseUrl } } };
    expect(await prepareMessage(message([voice()]), media(config, { OPENAI_API_KEY: KEY }).deps)).toEqual({
      ok: false,
      reply: TRANSCRIPTION_REPLIES.notConfigured,
    });
  });

  test("invalid credentials (401) are the failed reply", async () => {
    const server = await fake("deepgram");
    const { deps, warnings } = media(section("deepgram", server.baseUrl, { deepgram_api_key: "dg-wrong" }));
    expect(await prepareMessage(message([voice()]), deps)).toEqual({ ok: false, reply: TRANSCRIPTION_REPLIES.failed });
    expect(warnings.join()).toContain("Invalid credentials.");
  });
});

describe("before any request", () => {
  test("no [fermix_core.transcription]: the not-configured reply, nothing downloaded", async () => {
    let downloaded = false;
    const clip = voice(OGG, {
      download: async () => {
        downloaded = true;
        return OGG;
      },
    });
    expect(await prepareMessage(message([clip]), media({}).deps)).toEqual({
      ok: false,
      reply: TRANSCRIPTION_REPLIES.notConfigured,
    });
    expect(downloaded).toBe(false);
  });

  test("a declared size over max_file_mb: the too-large reply with the configured limit", async () => {
    const server = await fake("openai");
    const deps = media(section("openai", server.baseUrl, { max_file_mb: 2 })).deps;
    expect(deps.maxAudioBytes).toBe(2 * 1024 * 1024);
    const big = voice(OGG, { size: 3.2 * 1024 * 1024 });
    expect(await prepareMessage(message([big]), deps)).toEqual({
      ok: false,
      reply: "I couldn't transcribe your voice note — it's 3.2 MB, over the 2 MB limit. Send a shorter clip.",
    });
    expect(server.requests).toHaveLength(0);
  });

  test("a failed download: the download reply", async () => {
    const server = await fake("openai");
    const broken = voice(OGG, {
      download: async () => {
        throw new Error("getFile 400");
      },
    });
    expect(await prepareMessage(message([broken]), media(section("openai", server.baseUrl)).deps)).toEqual({
      ok: false,
      reply: TRANSCRIPTION_REPLIES.downloadFailed,
    });
  });

  test("an unreachable service: the failed reply", async () => {
    const server = await fake("openai");
    const baseUrl = server.baseUrl;
    await server.close();
    open.length = 0;
    const { deps, warnings } = media(section("openai", baseUrl));
    expect(await prepareMessage(message([voice()]), deps)).toEqual({ ok: false, reply: TRANSCRIPTION_REPLIES.failed });
    expect(warnings.join()).toContain("could not be reached");
  });
});
