import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";

const load = (body: string) => parseConfig(`[fermix_core.transcription]\n${body}\n`, "/h/config.toml");

describe("[fermix_core.transcription]", () => {
  test("takes a backend, a model, a size cap, per-backend keys and a base URL", () => {
    const config = load(
      [
        'backend = "deepgram"',
        'model = "nova-3"',
        "max_file_mb = 12.5",
        'deepgram_api_key = "@keyring"',
        'openai_api_key = "$OPENAI_TRANSCRIBE_KEY"',
        'xai_api_key = { source = "env", name = "XAI_STT" }',
        'base_url = "http://127.0.0.1:9000/v1"',
      ].join("\n"),
    );
    expect(config.fermix_core?.transcription).toMatchObject({ backend: "deepgram", max_file_mb: 12.5 });
  });

  test("an unknown backend fails the load, naming the choices", () => {
    expect(() => load('backend = "whisper"')).toThrow(/backend.*"openai", "xai" or "deepgram"/);
  });

  test.each(["0", "-1"])("max_file_mb = %s fails the load", (value) => {
    expect(() => load(`max_file_mb = ${value}`)).toThrow(/max_file_mb.*above 0/);
  });

  test("an unknown key fails the load", () => {
    expect(() => load('modle = "nova-3"')).toThrow(/modle/);
  });
});
