import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startFakeTranscription, type TranscriptionFlavor } from "../fake/transcription-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { snapshot } from "../setup/setup-fixture.ts";

const defer = cleanupAfterEach();
const KEY = "dg-test-setup-stt-0123456789abcdef";

/** The compiled binary with a temp HOME and the file store (no test may reach a real keychain). */
function world() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig('[fermix_core]\nsecret_store = "file"\n');
  const env = { FERMIX_HOME: h.home, HOME: h.userHome };
  const config = () => readFileSync(join(h.home, "config.toml"), "utf8");
  return {
    h,
    config,
    fermix: (args: string[], stdin?: string, extra: Record<string, string> = {}) =>
      runFermix(args, { env: { ...env, ...extra }, stdin }),
  };
}

async function fake(flavor: TranscriptionFlavor) {
  const f = await startFakeTranscription({ flavor, apiKey: KEY });
  defer(() => f.close());
  return f;
}

describe("fermix setup --transcription-backend (compiled binary)", () => {
  test("a piped key goes to the backend's own slot in the file store, config.toml points at it; doctor --full tests it", async () => {
    const { h, config, fermix } = world();
    const r = await fermix(
      ["setup", "--transcription-backend", "deepgram", "--transcription-api-key-stdin"],
      `${KEY}\n`,
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const secret = join(h.home, "secrets", "DEEPGRAM_API_KEY");
    expect(r.stdout).toBe(
      [
        `transcription: updated ${join(h.home, "config.toml")} (backend deepgram, model nova-3)`,
        `transcription key: stored in the file store, ${secret} (0600); config.toml points at it with deepgram_api_key = "@keyring"`,
        "A running daemon uses it from the next voice note (a new key for an unchanged config after fermix restart); fermix doctor --full tests it.",
        "",
      ].join("\n"),
    );
    expect(readFileSync(secret, "utf8")).toBe(KEY);
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    expect(config()).toBe(
      [
        "[fermix_core]",
        'secret_store = "file"',
        "",
        "[fermix_core.transcription]",
        'backend = "deepgram"',
        'model = "nova-3"',
        'deepgram_api_key = "@keyring"',
        "",
      ].join("\n"),
    );

    // The doctor row, against a fake Deepgram: the key resolves from the store, one clip is sent, nothing leaks.
    const deepgram = await fake("deepgram");
    h.writeConfig(config().replace('model = "nova-3"\n', `model = "nova-3"\nbase_url = "${deepgram.baseUrl}"\n`));
    const quick = await fermix(["doctor"]);
    expect(quick.stdout).toContain(
      "ok   transcription deepgram (nova-3); key: its own (deepgram_api_key) (fermix doctor --full sends it one short test clip)\n",
    );
    expect(deepgram.requests).toEqual([]);
    const full = await fermix(["doctor", "--full"]);
    expect(full.stdout).toContain(
      "ok   transcription deepgram (nova-3); key: its own (deepgram_api_key); a test clip was transcribed\n",
    );
    expect(deepgram.requests.map((q) => `${q.method} ${q.path} ${q.headers.authorization}`)).toEqual([
      `POST /v1/listen Token ${KEY}`,
    ]);
    for (const text of [r.stdout, quick.stdout, quick.stderr, full.stdout, full.stderr, config()]) {
      expect(text).not.toContain(KEY);
    }
  });

  test("a backend switch snaps the model to the new default; a model is kept when named; xai has none", async () => {
    const { config, fermix } = world();
    const openai = await fermix(["setup", "--transcription-backend", "openai"], undefined, {
      OPENAI_API_KEY: "sk-env-key-0123456789",
    });
    expect(openai.code).toBe(0);
    expect(openai.stdout).toContain("transcription key: none of its own; voice notes use OPENAI_API_KEY\n");
    expect(config()).toContain('backend = "openai"\nmodel = "gpt-4o-mini-transcribe"\n');

    expect((await fermix(["setup", "--transcription-model", "whisper-1"])).code).toBe(0);
    expect(config()).toContain('backend = "openai"\nmodel = "whisper-1"\n');

    expect((await fermix(["setup", "--transcription-backend", "xai"])).code).toBe(0);
    expect(config()).toContain('[fermix_core.transcription]\nbackend = "xai"\n');
    expect(config()).not.toContain("model =");

    const refused = await fermix(["setup", "--transcription-model", "grok-stt"]);
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toContain(
      "setup: --transcription-model: SpaceXAI's speech-to-text takes no model; leave it out",
    );

    // Back to openai: the model snaps to its default again, the old whisper-1 is not carried over.
    expect((await fermix(["setup", "--transcription-backend", "openai"])).code).toBe(0);
    expect(config()).toContain('backend = "openai"\nmodel = "gpt-4o-mini-transcribe"\n');
  });

  test("a key on the command line is refused without echoing it, and nothing is written", async () => {
    const { h, fermix } = world();
    const before = snapshot(h.home);
    for (const args of [
      ["setup", "--transcription-backend", "deepgram", "--transcription-api-key", KEY],
      ["setup", "--transcription-backend", "deepgram", `--transcription-api-key=${KEY}`],
    ]) {
      const r = await fermix(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        "setup: --transcription-api-key: a key is never taken from the command line; pipe it with --transcription-api-key-stdin",
      );
      expect(r.stdout + r.stderr).not.toContain(KEY);
    }
    expect(snapshot(h.home)).toEqual(before);
    expect(existsSync(join(h.home, "secrets"))).toBe(false);
  });

  test("usage errors: an unknown backend, Deepgram without a key, mixing with provider flags", async () => {
    const { h, fermix } = world();
    const before = snapshot(h.home);
    const cases: Array<[string[], string]> = [
      [
        ["setup", "--transcription-backend", "whisper"],
        'setup: --transcription-backend: unknown service "whisper" (one of openai, xai, deepgram)',
      ],
      [
        ["setup", "--transcription-model", "nova-3"],
        "setup: choose the speech-to-text service with --transcription-backend (one of openai, xai, deepgram)",
      ],
      [
        ["setup", "--transcription-backend", "deepgram"],
        "setup: Deepgram has no chat key to reuse and needs its own: pipe it with --transcription-api-key-stdin",
      ],
      [
        ["setup", "--transcription-backend", "openai", "--provider", "openai"],
        "setup: --transcription-backend sets up only transcription; run setup without it for --provider",
      ],
    ];
    for (const [args, message] of cases) {
      const r = await fermix(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(snapshot(h.home)).toEqual(before);
  });
});
