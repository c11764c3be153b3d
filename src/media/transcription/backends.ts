import { deepgramTranscription } from "./deepgram-transcription.ts";
import { openaiTranscription } from "./openai-transcription.ts";
import type { TranscriptionBackend } from "./transcription-types.ts";
import { xaiTranscription } from "./xai-transcription.ts";

/** Every speech-to-text backend, one line each ([fermix_core.transcription] backend). */
export const TRANSCRIBERS: Record<TranscriptionBackend["id"], TranscriptionBackend> = {
  openai: openaiTranscription,
  xai: xaiTranscription,
  deepgram: deepgramTranscription,
};
