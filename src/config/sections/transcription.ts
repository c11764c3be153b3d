import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { HttpUrl } from "./_http-url.ts";
import { SecretRef } from "./secret-ref.ts";

/**
 * [fermix_core.transcription]: voice notes and audio become text before a chat turn. `model` is one key shared by
 * the backends (xai's STT takes none); the openai and xai keys override the chat provider's key, deepgram's is required.
 */
export const TRANSCRIPTION_BACKENDS = ["openai", "xai", "deepgram"] as const;
export const TranscriptionConfig = lazySchema(() =>
  v.strictObject({
    backend: v.optional(v.picklist(TRANSCRIPTION_BACKENDS, 'one of "openai", "xai" or "deepgram"')),
    model: v.optional(v.pipe(v.string(), v.minLength(1))),
    max_file_mb: v.optional(v.pipe(v.number("a number of megabytes"), v.gtValue(0, "a number of megabytes above 0"))),
    openai_api_key: v.optional(SecretRef),
    xai_api_key: v.optional(SecretRef),
    deepgram_api_key: v.optional(SecretRef),
    /** The backend's API root, for a self-hosted compatible server (and tests); the vendor's by default. */
    base_url: v.optional(HttpUrl),
  }),
);
export type TranscriptionConfig = v.InferOutput<typeof TranscriptionConfig>;
