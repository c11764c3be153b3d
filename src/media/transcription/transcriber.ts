import type { Env } from "../../config/env.ts";
import type { Config } from "../../config/schema.ts";
import { transcriptionKeySlot } from "../../config/secret-slots.ts";
import { envSecret } from "../../config/secrets.ts";
import type { SecretRef } from "../../config/sections/secret-ref.ts";
import type { TranscriptionConfig } from "../../config/sections/transcription.ts";
import { TRANSCRIBERS } from "./backends.ts";
import {
  type AudioClip,
  type TranscriptionBackend,
  TranscriptionNotConfigured,
  type TranscriptionTarget,
} from "./transcription-types.ts";

export const DEFAULT_MAX_FILE_MB = 20;

export type TranscriberDeps = {
  /** config.toml as it is now: a backend or key changed in setup applies to the next voice note. */
  config: () => Config;
  env: Env;
  resolveSecret(ref: SecretRef, slot: string): string;
  fetch: typeof fetch;
  timeoutMs?: number;
  log?: { warn(msg: string): void };
};

/** The gateway's media step: `transcribe` is absent while no backend is configured. */
export type Transcriber = {
  readonly transcribe?: (clip: AudioClip) => Promise<string>;
  readonly maxAudioBytes: number;
  readonly log?: { warn(msg: string): void };
};

/**
 * The configured speech-to-text, from [fermix_core.transcription]: the section's presence turns it on (backend
 * openai unless it names another). The key is resolved on the first voice note, not at boot (a "@keyring" key
 * may mean a keyring lookup), and kept while the section stays the same.
 */
export function createTranscriber(deps: TranscriberDeps): Transcriber {
  let cached: { section: TranscriptionConfig; transcribe: (clip: AudioClip) => Promise<string> } | undefined;
  const sectionOf = (config: Config) => config.fermix_core?.transcription;
  const forSection = (config: Config, section: TranscriptionConfig) => {
    if (cached?.section === section) return cached.transcribe;
    const backend = TRANSCRIBERS[section.backend ?? "openai"];
    let target: TranscriptionTarget | undefined;
    const transcribe = (clip: AudioClip) => {
      target ??= {
        baseUrl: (section.base_url ?? backend.defaultBaseUrl).replace(/\/+$/, ""),
        apiKey: transcriptionKey(backend, config, deps).key,
        model: backend.defaultModel ? (section.model ?? backend.defaultModel) : undefined,
      };
      return backend.transcribe(clip, target, { fetch: deps.fetch, timeoutMs: deps.timeoutMs });
    };
    cached = { section, transcribe };
    return transcribe;
  };
  return {
    get transcribe() {
      const config = deps.config();
      const section = sectionOf(config);
      return section ? forSection(config, section) : undefined;
    },
    get maxAudioBytes() {
      return Math.round((sectionOf(deps.config())?.max_file_mb ?? DEFAULT_MAX_FILE_MB) * 1024 * 1024);
    },
    log: deps.log,
  };
}

/** Where a backend's key came from, for `fermix doctor` (never the key itself). */
export type TranscriptionKeySource = "own" | "chat provider" | "environment";

/**
 * The backend's own key, else (openai, xai) the chat provider's API key, else its environment variable; throws
 * TranscriptionNotConfigured (naming the slot, never a value) when there is none. Shared with `fermix doctor`.
 */
export function transcriptionKey(
  backend: TranscriptionBackend,
  config: Config,
  deps: Pick<TranscriberDeps, "env" | "resolveSecret">,
): { key: string; source: TranscriptionKeySource } {
  const section = config.fermix_core?.transcription ?? {};
  const providers = config.fermix_core?.providers ?? {};
  const own = { openai: section.openai_api_key, xai: section.xai_api_key, deepgram: section.deepgram_api_key }[
    backend.id
  ];
  const resolve = (ref: SecretRef, slot: string) => {
    try {
      return deps.resolveSecret(ref, slot);
    } catch (err) {
      throw TranscriptionNotConfigured(
        `the ${backend.label} transcription key is unavailable: ${(err as Error).message}`,
      );
    }
  };
  const chat = (key: string) => ({ key, source: "chat provider" as const });
  const fromEnv = (name: string) => {
    const key = envSecret(deps.env, name);
    return key ? { key, source: "environment" as const } : undefined;
  };
  if (own !== undefined) return { key: resolve(own, transcriptionKeySlot(backend.id)), source: "own" };
  if (backend.id === "openai") {
    if (providers.openai?.api_key !== undefined) return chat(resolve(providers.openai.api_key, "OPENAI_API_KEY"));
    const exported = fromEnv("OPENAI_API_KEY");
    if (exported) return exported;
  }
  // A Grok subscription's OAuth token does not work for /v1/stt: only a real API key does.
  if (backend.id === "xai" && providers.xai?.auth_mode !== "oauth") {
    if (providers.xai?.api_key !== undefined) return chat(resolve(providers.xai.api_key, "XAI_API_KEY"));
    const exported = fromEnv("XAI_API_KEY");
    if (exported) return exported;
  }
  const exported = backend.id === "deepgram" ? fromEnv("DEEPGRAM_API_KEY") : undefined;
  if (exported) return exported;
  const key = `${backend.id}_api_key`;
  throw TranscriptionNotConfigured(
    `[fermix_core.transcription] backend = "${backend.id}" has no key: set ${key} there${backend.id === "deepgram" ? "" : ` or configure the ${backend.label} provider's api_key`} (fermix setup)`,
  );
}
