import { postForJson } from "./_http.ts";
import { type TranscriptionBackend, TranscriptionFailed } from "./transcription-types.ts";

/**
 * Deepgram's pre-recorded `POST /v1/listen?model=…&smart_format=true`: the raw audio is the body (its type in
 * Content-Type), the key goes as `Authorization: Token <key>`, and the text sits at
 * results.channels[0].alternatives[0].transcript.
 */
export const deepgramTranscription: TranscriptionBackend = {
  id: "deepgram",
  label: "Deepgram",
  defaultBaseUrl: "https://api.deepgram.com/v1",
  defaultModel: "nova-3",
  async transcribe(clip, target, deps) {
    const query = new URLSearchParams({ model: target.model ?? "nova-3", smart_format: "true" });
    const body = await postForJson(
      "deepgram",
      `${target.baseUrl}/listen?${query}`,
      {
        headers: { authorization: `Token ${target.apiKey}`, "content-type": clip.mime },
        body: clip.bytes as Uint8Array<ArrayBuffer>,
      },
      deps,
    );
    const transcript = body?.results?.channels?.[0]?.alternatives?.[0]?.transcript;
    if (typeof transcript !== "string") {
      throw TranscriptionFailed("deepgram answered without a transcript", { backend: "deepgram" });
    }
    return transcript;
  },
};
