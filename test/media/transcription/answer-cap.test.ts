import { afterEach, describe, expect, test } from "bun:test";
import { MAX_TRANSCRIPTION_ANSWER_BYTES } from "../../../src/media/transcription/_http.ts";
import { TRANSCRIBERS } from "../../../src/media/transcription/backends.ts";
import { type FakeTranscription, startFakeTranscription } from "../../fake/transcription-api.ts";

/*
 * A transcription service's answer is read only up to a cap (set small here, so a short transcript is over it):
 * past it the call fails naming the limit, and nothing of the body is parsed.
 */

const KEY = "sk-transcribe-cap-0123456789";
const clip = { bytes: new Uint8Array([0x4f, 0x67, 0x67, 0x53, 0, 2, 0, 0, 1, 2, 3, 4]), mime: "audio/ogg" };
const open: FakeTranscription[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

describe("the transcription answer cap", () => {
  test("an answer over the cap is refused with the limit named; under it, the transcript comes back", async () => {
    const server = await startFakeTranscription({ flavor: "openai", apiKey: KEY, transcript: "buy milk ".repeat(50) });
    open.push(server);
    const target = { baseUrl: server.baseUrl, apiKey: KEY };
    await expect(TRANSCRIBERS.openai.transcribe(clip, target, { fetch, maxAnswerBytes: 100 })).rejects.toMatchObject({
      code: "transcription_failed",
      message: "openai's answer is larger than 100 bytes; refusing it",
      data: { backend: "openai", status: 200 },
    });
    expect(await TRANSCRIBERS.openai.transcribe(clip, target, { fetch })).toBe("buy milk ".repeat(50));
    expect(MAX_TRANSCRIPTION_ANSWER_BYTES).toBe(8 * 1024 * 1024);
  });
});
