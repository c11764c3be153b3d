import { defineError } from "../../error.ts";

/** A voice note, audio file or video note, downloaded. */
export type AudioClip = { bytes: Uint8Array; mime: string; filename?: string };

/** Where one backend call goes: resolved from [fermix_core.transcription] and the provider keys. */
export type TranscriptionTarget = { baseUrl: string; apiKey: string; model?: string };

export type TranscriptionDeps = {
  fetch: typeof fetch;
  timeoutMs?: number;
  /** _http.ts's MAX_TRANSCRIPTION_ANSWER_BYTES unless a test sets a smaller one. */
  maxAnswerBytes?: number;
};

/** One speech-to-text service: one file each, one line in backends.ts. */
export type TranscriptionBackend = {
  id: "openai" | "xai" | "deepgram";
  label: string;
  defaultBaseUrl: string;
  /** Absent: the service takes no model (xAI's STT). */
  defaultModel?: string;
  transcribe(clip: AudioClip, target: TranscriptionTarget, deps: TranscriptionDeps): Promise<string>;
};

/** No backend, or its key is missing: the sender is told to run setup. */
export const TranscriptionNotConfigured = defineError("transcription_not_configured");
/** The service refused the file's size; `limitBytes` when it said its limit. */
export const TranscriptionTooLarge = defineError<{ backend: string; limitBytes?: number }>("transcription_too_large");
/** Anything else: a rejected key, a network failure, an answer without a transcript. */
export const TranscriptionFailed = defineError<{ backend: string; status?: number }>("transcription_failed");
