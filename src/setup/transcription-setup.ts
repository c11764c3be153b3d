import { join } from "node:path";
import { UsageError } from "../cli/exit.ts";
import type { Env } from "../config/env.ts";
import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { transcriptionKeySlot } from "../config/secret-slots.ts";
import type { SecretStore } from "../config/secret-store.ts";
import { TRANSCRIPTION_BACKENDS } from "../config/sections/transcription.ts";
import { TRANSCRIBERS } from "../media/transcription/backends.ts";
import { createConfigWrites } from "../web/config-writes.ts";
import { createPrompter, type SetupIo } from "./prompt.ts";
import { saveTranscription, type TranscriptionBackendId } from "./transcription-config.ts";
import { checkApiKey, checkModel, orUsage } from "./validate.ts";

/** `fermix setup --transcription-backend B [--transcription-model M] [--transcription-api-key-stdin]`. */
export type TranscriptionFlags = { backend?: string; model?: string; apiKeyStdin: boolean };

export type TranscriptionSetupDeps = {
  env: Env;
  paths: Pick<FermixPaths, "config" | "secrets">;
  io: SetupIo;
  /** Tests hand in a fake; by default the OS keyring with the file store behind it, as [fermix_core] secret_store says. */
  store?: (config: Config) => SecretStore;
};

const MAX_KEY_BYTES = 64 * 1024;

/**
 * Voice notes' speech-to-text, as the web page's Voice notes card saves it: the backend and its model in
 * [fermix_core.transcription] (a backend switch snaps the model to the new backend's default; SpaceXAI's takes
 * none), and a key — read from stdin, never from the command line — stored under that backend's own slot.
 * Every flag is checked, and the key read, before anything is written.
 */
export async function runTranscriptionSetup(flags: TranscriptionFlags, deps: TranscriptionSetupDeps): Promise<void> {
  const { io, paths } = deps;
  const writes = createConfigWrites({ paths, store: deps.store });
  const config = await writes.config();
  const current = config.fermix_core?.transcription;
  const backend = backendOf(flags.backend, current?.backend);
  const service = TRANSCRIBERS[backend];
  if (flags.model !== undefined) {
    if (!service.defaultModel) {
      throw UsageError(`setup: --transcription-model: ${service.label}'s speech-to-text takes no model; leave it out`);
    }
    orUsage(checkModel(flags.model), "--transcription-model");
  }
  let apiKey: string | undefined;
  if (flags.apiKeyStdin) {
    const prompter = createPrompter(io);
    const question = `${service.label} transcription API key: `;
    // On a terminal "stdin" is the person typing: a no-echo line, not a wait for the end of the input.
    const raw = io.setRawMode ? await prompter.hidden(question) : await prompter.rest(MAX_KEY_BYTES);
    apiKey = orUsage(checkApiKey(raw), "--transcription-api-key-stdin");
  }
  const ownKey = current?.[`${backend}_api_key`];
  if (backend === "deepgram" && !apiKey && ownKey === undefined && !deps.env.DEEPGRAM_API_KEY) {
    throw UsageError(
      'setup: Deepgram has no chat key to reuse and needs its own: pipe it with --transcription-api-key-stdin (echo "$KEY" | fermix setup --transcription-backend deepgram --transcription-api-key-stdin)',
    );
  }

  const { changed, stored, model } = await saveTranscription(writes, {
    backend,
    model: flags.model?.trim(),
    apiKey,
  });
  const lines = [
    changed
      ? `transcription: updated ${paths.config} (backend ${backend}${model ? `, model ${model}` : ""})`
      : `transcription: ${paths.config} already holds backend ${backend}${model ? `, model ${model}` : ""}; unchanged`,
  ];
  const slot = transcriptionKeySlot(backend);
  const field = `${backend}_api_key`;
  if (stored) {
    const place =
      stored === "keyring" ? `the OS keyring (${slot})` : `the file store, ${join(paths.secrets, slot)} (0600)`;
    lines.push(`transcription key: stored in ${place}; config.toml points at it with ${field} = "@keyring"`);
  } else if (ownKey !== undefined) {
    lines.push(`transcription key: kept the ${field} config.toml already gives it`);
  } else {
    lines.push(`transcription key: none of its own; ${reusedKey(backend, config, deps.env)}`);
  }
  lines.push(
    "A running daemon uses it from the next voice note (a new key for an unchanged config after fermix restart); fermix doctor --full tests it.",
  );
  await io.write(`${lines.join("\n")}\n`);
}

function backendOf(flag: string | undefined, configured: TranscriptionBackendId | undefined): TranscriptionBackendId {
  const known = TRANSCRIPTION_BACKENDS.join(", ");
  if (flag === undefined) {
    if (configured) return configured;
    throw UsageError(`setup: choose the speech-to-text service with --transcription-backend (one of ${known})`);
  }
  const id = flag.trim().toLowerCase();
  if ((TRANSCRIPTION_BACKENDS as readonly string[]).includes(id)) return id as TranscriptionBackendId;
  throw UsageError(`setup: --transcription-backend: unknown service "${flag}" (one of ${known})`);
}

/** openai and xai fall back on their chat provider's key, as the transcriber does; deepgram was refused above. */
function reusedKey(backend: TranscriptionBackendId, config: Config, env: Env): string {
  const providers = config.fermix_core?.providers ?? {};
  if (backend === "openai") {
    if (providers.openai?.api_key !== undefined) return "voice notes use the OpenAI provider's key";
    if (env.OPENAI_API_KEY) return "voice notes use OPENAI_API_KEY";
  }
  if (backend === "xai" && providers.xai?.auth_mode !== "oauth") {
    if (providers.xai?.api_key !== undefined) return "voice notes use the SpaceXAI provider's key";
    if (env.XAI_API_KEY) return "voice notes use XAI_API_KEY";
  }
  if (backend === "deepgram") return "voice notes use DEEPGRAM_API_KEY";
  const why =
    backend === "xai" && providers.xai?.auth_mode === "oauth"
      ? " (the Grok sign-in does not work for speech-to-text)"
      : "";
  return `warning: voice notes have no key to use${why}; pipe one with --transcription-api-key-stdin`;
}
