import { audioFilename, postForJson } from "./_http.ts";
import { type TranscriptionBackend, TranscriptionFailed } from "./transcription-types.ts";

/** OpenAI's `POST /v1/audio/transcriptions`: multipart `file` + `model`, Bearer key, `{ "text": … }` back. */
export const openaiTranscription: TranscriptionBackend = {
  id: "openai",
  label: "OpenAI",
  defaultBaseUrl: "https://api.openai.com/v1",
  defaultModel: "gpt-4o-mini-transcribe",
  async transcribe(clip, target, deps) {
    const form = new FormData();
    form.append("file", new Blob([clip.bytes as Uint8Array<ArrayBuffer>], { type: clip.mime }), audioFilename(clip));
    form.append("model", target.model ?? "gpt-4o-mini-transcribe");
    form.append("response_format", "json");
    const body = await postForJson(
      "openai",
      `${target.baseUrl}/audio/transcriptions`,
      { headers: { authorization: `Bearer ${target.apiKey}` }, body: form },
      deps,
      // "Maximum content size limit (26214400) exceeded (…)"
      (_body, text) => Number(/limit \((\d+)\)/.exec(text)?.[1]) || undefined,
    );
    if (typeof body?.text !== "string") {
      throw TranscriptionFailed("openai answered without a transcript", { backend: "openai" });
    }
    return body.text;
  },
};
