import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { transcriptionCheck } from "../../src/doctor/transcription-check.ts";
import { startFakeTranscription, type TranscriptionFlavor } from "../fake/transcription-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-stt-doctor-0123456789abcdef";

async function world(flavor: TranscriptionFlavor) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeTranscription({ flavor, apiKey: KEY });
  defer(() => fake.close());
  const doctor = async (config: string, over: { full?: boolean; env?: Record<string, string> } = {}) => {
    h.writeConfig(config);
    const report = await runDoctor(doctorDeps(h, { full: over.full ?? false, env: over.env }), [transcriptionCheck]);
    return report.rows;
  };
  return { h, fake, doctor };
}

describe("doctor: transcription", () => {
  test("not set up: no row", async () => {
    const { doctor } = await world("openai");
    expect(await doctor('[fermix_core.personalization]\ntimezone = "UTC"\n')).toEqual([]);
  });

  test("the backend and where its key comes from, never the key; --full transcribes one short clip", async () => {
    const { h, fake, doctor } = await world("openai");
    // What setup writes: "@keyring", the key in the file store under the backend's own slot.
    mkdirSync(join(h.home, "secrets"), { recursive: true, mode: 0o700 });
    writeFileSync(join(h.home, "secrets", "OPENAI_TRANSCRIPTION_API_KEY"), KEY, { mode: 0o600 });
    const config = `[fermix_core.transcription]\nbackend = "openai"\nbase_url = "${fake.baseUrl}"\nopenai_api_key = "@keyring"\n`;
    const quick = await doctor(config);
    expect(quick).toEqual([
      {
        id: "transcription",
        title: "transcription",
        status: "ok",
        detail:
          "openai (gpt-4o-mini-transcribe); key: its own (openai_api_key) (fermix doctor --full sends it one short test clip)",
      },
    ]);
    expect(fake.requests).toEqual([]);

    const full = await doctor(config, { full: true });
    expect(full[0]).toMatchObject({
      status: "ok",
      detail: "openai (gpt-4o-mini-transcribe); key: its own (openai_api_key); a test clip was transcribed",
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: "POST", path: "/v1/audio/transcriptions" });
    expect(fake.requests[0]!.fields).toContainEqual(
      expect.objectContaining({ name: "file", filename: "fermix-doctor.wav" }),
    );
    expect(JSON.stringify([quick, full])).not.toContain(KEY);
  });

  test("xai reuses the SpaceXAI provider's key and has no model", async () => {
    const { fake, doctor } = await world("xai");
    const rows = await doctor(
      `[fermix_core.providers.xai]\napi_key = "$XAI_KEY"\n\n[fermix_core.transcription]\nbackend = "xai"\nbase_url = "${fake.baseUrl}"\n`,
      { full: true, env: { XAI_KEY: KEY } },
    );
    expect(rows[0]).toMatchObject({
      status: "ok",
      detail: "xai; key: the SpaceXAI provider's; a test clip was transcribed",
    });
    expect(fake.requests[0]!.path).toBe("/v1/stt");
  });

  test("a missing key fails with the setup command that stores one", async () => {
    const { fake, doctor } = await world("deepgram");
    const rows = await doctor(`[fermix_core.transcription]\nbackend = "deepgram"\nbase_url = "${fake.baseUrl}"\n`, {
      full: true,
    });
    expect(rows).toEqual([
      {
        id: "transcription",
        title: "transcription",
        status: "fail",
        detail:
          'deepgram (nova-3): [fermix_core.transcription] backend = "deepgram" has no key: set deepgram_api_key there (fermix setup)',
        fix: "fermix setup --transcription-backend deepgram --transcription-api-key-stdin",
      },
    ]);
    expect(fake.requests).toEqual([]);
  });

  test("--full: a refused key or a failing service fails the row with the service's words, the key redacted", async () => {
    const { fake, doctor } = await world("deepgram");
    const config = `[fermix_core.transcription]\nbackend = "deepgram"\nbase_url = "${fake.baseUrl}"\ndeepgram_api_key = "$DG_KEY"\n`;
    const WRONG = "dg-wrong-key-fedcba9876543210";
    const refused = await doctor(config, { full: true, env: { DG_KEY: WRONG } });
    expect(refused[0]).toMatchObject({
      status: "fail",
      detail:
        "deepgram (nova-3); key: its own (deepgram_api_key); the test clip failed: deepgram transcription failed (HTTP 401): Invalid credentials.",
      fix: "the key was refused: fermix setup --transcription-backend deepgram --transcription-api-key-stdin",
    });
    expect(fake.requests[0]!.headers.authorization).toBe(`Token ${WRONG}`);

    fake.enqueue({ kind: "error", status: 503 });
    const down = await doctor(config, { full: true, env: { DG_KEY: KEY } });
    expect(down[0]).toMatchObject({
      status: "fail",
      detail:
        "deepgram (nova-3); key: its own (deepgram_api_key); the test clip failed: deepgram transcription failed (HTTP 503): An internal server error occurred",
      fix: "check the service's status and [fermix_core.transcription]",
    });
    expect(JSON.stringify([refused, down])).not.toContain(KEY);
    expect(JSON.stringify([refused, down])).not.toContain(WRONG);
  });
});
