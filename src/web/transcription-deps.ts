import type { Config } from "../config/schema.ts";
import type { TranscriptionConfig } from "../config/sections/transcription.ts";
import { TRANSCRIBERS } from "../media/transcription/backends.ts";
import {
  modelFor,
  saveTranscription,
  type TranscriptionBackendId,
  type TranscriptionSave,
} from "../setup/transcription-config.ts";
import type { ConfigWrites } from "./config-writes.ts";

// The save itself is shared with `fermix setup --transcription-backend` (src/setup/transcription-config.ts).
export { modelFor, type TranscriptionBackendId, type TranscriptionSave };

/** A key slot as the Voice notes card shows it: its own key, the chat provider's key reused, or nothing. */
export type KeyState = "set" | "chat key" | "not set";

export type TranscriptionView = {
  /** Undefined while config.toml has no [fermix_core.transcription] (voice notes are not transcribed). */
  backend?: TranscriptionBackendId;
  model?: string;
  keys: Record<TranscriptionBackendId, KeyState>;
};

/** The Voice notes card: [fermix_core.transcription] and its three key slots. */
export type TranscriptionWeb = {
  view(): Promise<TranscriptionView>;
  /** Saves and returns the notice; throws (a FermixError naming the file) when config.toml refuses the edit. */
  save(s: TranscriptionSave): Promise<string>;
};

export function keyStates(config: Config): Record<TranscriptionBackendId, KeyState> {
  const t: TranscriptionConfig = config.fermix_core?.transcription ?? {};
  const chat = config.fermix_core?.providers ?? {};
  const state = (own: unknown, chatKey: unknown): KeyState =>
    own !== undefined ? "set" : chatKey !== undefined ? "chat key" : "not set";
  return {
    openai: state(t.openai_api_key, chat.openai?.api_key),
    xai: state(t.xai_api_key, chat.xai?.api_key),
    deepgram: state(t.deepgram_api_key, undefined),
  };
}

export function createTranscriptionWeb(writes: ConfigWrites): TranscriptionWeb {
  return {
    async view() {
      const config = await writes.config();
      const t = config.fermix_core?.transcription;
      return {
        ...(t ? { backend: t.backend ?? "openai" } : {}),
        ...(t?.model ? { model: t.model } : {}),
        keys: keyStates(config),
      };
    },
    async save(s) {
      const { changed, stored, model } = await saveTranscription(writes, s);
      const label = TRANSCRIBERS[s.backend].label;
      const key = stored ? `; the key is stored in the ${stored === "keyring" ? "OS keyring" : "file store"}` : "";
      // The daemon re-reads config.toml before each voice note, but keeps a key it resolved while the file is the same.
      if (changed)
        return `voice notes: ${label}${model ? ` (${model})` : ""} saved${key}; applies to the next voice note`;
      if (stored)
        return `voice notes: the new ${label} key is stored; run fermix restart for a running daemon to use it`;
      return "voice notes: nothing changed";
    },
  };
}
