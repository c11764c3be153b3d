import { transcriptionKeySlot } from "../config/secret-slots.ts";
import type { TRANSCRIPTION_BACKENDS, TranscriptionConfig } from "../config/sections/transcription.ts";
import { TRANSCRIBERS } from "../media/transcription/backends.ts";
import type { ConfigWrites } from "../web/config-writes.ts";

export type TranscriptionBackendId = (typeof TRANSCRIPTION_BACKENDS)[number];

/** One save of [fermix_core.transcription]: the Voice notes card's form, or `fermix setup --transcription-…`. */
export type TranscriptionSave = { backend: TranscriptionBackendId; model?: string; apiKey?: string };

export const TRANSCRIPTION_TABLE = "fermix_core.transcription";

/**
 * The model a save writes: a backend switch snaps it to the new backend's default unless the save names another
 * model; xAI's STT takes none, so the shared key is removed.
 */
export function modelFor(current: TranscriptionConfig | undefined, s: TranscriptionSave): string | undefined {
  const fallback = TRANSCRIBERS[s.backend].defaultModel;
  if (!fallback) return undefined;
  const was = current?.backend ?? "openai";
  // The form shows this model; sent back unchanged with another backend, it is the old backend's, not a choice.
  const shown = current?.model ?? TRANSCRIBERS[was].defaultModel;
  if ((was !== s.backend || current === undefined) && (!s.model || s.model === shown)) return fallback;
  return s.model ?? current?.model ?? fallback;
}

/**
 * Writes backend and model in place (comments kept) and, with a key, stores it under the backend's own slot
 * ("@keyring" in `<backend>_api_key`). The edit is checked before the key is stored, so a refused edit stores
 * nothing. Both setup surfaces save through here.
 */
export async function saveTranscription(
  writes: ConfigWrites,
  s: TranscriptionSave,
): Promise<{ changed: boolean; stored?: "keyring" | "file"; model?: string }> {
  const current = (await writes.config()).fermix_core?.transcription;
  const model = modelFor(current, s);
  const result = await writes.apply(
    TRANSCRIPTION_TABLE,
    [
      { table: TRANSCRIPTION_TABLE, key: "backend", value: s.backend },
      { table: TRANSCRIPTION_TABLE, key: "model", value: model },
    ],
    s.apiKey
      ? {
          table: TRANSCRIPTION_TABLE,
          key: `${s.backend}_api_key`,
          slot: transcriptionKeySlot(s.backend),
          value: s.apiKey,
        }
      : undefined,
    (c) => c.fermix_core?.transcription?.backend === s.backend && c.fermix_core.transcription.model === model,
  );
  return { ...result, ...(model ? { model } : {}) };
}
