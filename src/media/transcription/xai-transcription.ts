import { audioFilename, postForJson } from "./_http.ts";
import { type TranscriptionBackend, TranscriptionFailed } from "./transcription-types.ts";

/**
 * SpaceXAI's `POST /v1/stt`: multipart with `format=true` (formatted text), the file as the LAST field (the
 * service reads fields in order and starts on the audio), no model field. Needs a real API key: the Grok
 * subscription's OAuth token is refused here.
 */
export const xaiTranscription: TranscriptionBackend = {
  id: "xai",
  label: "SpaceXAI",
  defaultBaseUrl: "https://api.x.ai/v1",
  async transcribe(clip, target, deps) {
    const form = new FormData();
    form.append("format", "true");
    form.append("file", new Blob([clip.bytes as Uint8Array<ArrayBuffer>], { type: clip.mime }), audioFilename(clip));
    const body = await postForJson(
      "xai",
      `${target.baseUrl}/stt`,
      { headers: { authorization: `Bearer ${target.apiKey}` }, body: form },
      deps,
    );
    if (typeof body?.text !== "string")
      throw TranscriptionFailed("xai answered without a transcript", { backend: "xai" });
    return body.text;
  },
};
