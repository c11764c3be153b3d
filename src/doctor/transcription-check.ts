import { resolveSecret } from "../config/secrets.ts";
import { isFermixError } from "../error.ts";
import { TRANSCRIBERS } from "../media/transcription/backends.ts";
import { type TranscriptionKeySource, transcriptionKey } from "../media/transcription/transcriber.ts";
import type { TranscriptionBackend } from "../media/transcription/transcription-types.ts";
import { type DoctorRow, defineCheck, skippedForConfig } from "./check.ts";

const ID = "transcription";

/**
 * Voice notes' speech-to-text: the configured backend and whether its key resolves (where from, never what), as
 * the transcriber resolves it; with --full, one short silent clip sent through the same backend code a voice note
 * takes, so ok means the service, the model and the key all answer.
 */
export const transcriptionCheck = defineCheck({
  id: ID,
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig(ID, ID)];
    const section = ctx.config.fermix_core?.transcription;
    // Not set up, nothing to say (as for channels): a voice note gets a reply saying how to set it up.
    if (!section) return [];
    const backend = TRANSCRIBERS[section.backend ?? "openai"];
    const model = backend.defaultModel ? (section.model ?? backend.defaultModel) : undefined;
    const what = `${backend.id}${model ? ` (${model})` : ""}`;
    const setKey = `fermix setup --transcription-backend ${backend.id} --transcription-api-key-stdin`;
    let key: { key: string; source: TranscriptionKeySource };
    try {
      key = transcriptionKey(backend, ctx.config, {
        env: ctx.env,
        resolveSecret: (ref, slot) =>
          resolveSecret(ref, slot, {
            env: ctx.env,
            secretsDir: ctx.paths.secrets,
            profile: ctx.config?.fermix_core?.profile,
            platform: ctx.platform,
            run: ctx.run,
          }),
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return [row("fail", `${what}: ${message}`, setKey)];
    }
    const keyIs = `key: ${describeSource(backend, key.source)}`;
    if (!ctx.full) return [row("ok", `${what}; ${keyIs} (fermix doctor --full sends it one short test clip)`)];
    const baseUrl = (section.base_url ?? backend.defaultBaseUrl).replace(/\/+$/, "");
    try {
      await backend.transcribe(
        { bytes: silentWav(), mime: "audio/wav", filename: "fermix-doctor.wav" },
        { baseUrl, apiKey: key.key, model },
        { fetch: ctx.fetch, timeoutMs: ctx.probeTimeoutMs },
      );
      return [row("ok", `${what}; ${keyIs}; a test clip was transcribed`)];
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const status = isFermixError(err) ? (err.data as { status?: number }).status : undefined;
      // xAI answers a wrong key with a 400 that says so.
      const keyRefused = status === 401 || status === 403 || /api key|credentials/i.test(message);
      return [
        row(
          "fail",
          `${what}; ${keyIs}; the test clip failed: ${message}`,
          keyRefused ? `the key was refused: ${setKey}` : "check the service's status and [fermix_core.transcription]",
        ),
      ];
    }
  },
});

function row(status: DoctorRow["status"], detail: string, fix?: string): DoctorRow {
  return { id: ID, title: ID, status, detail, ...(fix ? { fix } : {}) };
}

function describeSource(backend: TranscriptionBackend, source: TranscriptionKeySource): string {
  if (source === "own") return `its own (${backend.id}_api_key)`;
  if (source === "chat provider") return `the ${backend.label} provider's`;
  return `from the environment (${backend.id === "deepgram" ? "DEEPGRAM" : backend.id.toUpperCase()}_API_KEY)`;
}

/** Half a second of 16 kHz mono silence: long enough for every service's minimum, too short to cost anything. */
function silentWav(): Uint8Array {
  const samples = 8000;
  const data = samples * 2;
  const bytes = new Uint8Array(44 + data);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) bytes[at + i] = text.charCodeAt(i);
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + data, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, 16_000, true); // sample rate
  view.setUint32(28, 32_000, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, data, true);
  return bytes;
}
