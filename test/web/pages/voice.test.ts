import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { voicePage } from "../../../src/web/pages/voice.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { cardsFixture, ctx, form } from "./_cards-fixture.ts";

const KEY = "sk-proj-voice0123456789abcdefghijklmnopqrstuv";
const DG_KEY = "dg-voice0123456789abcdefghijklmnopqrstuvwxyz";
const defer = cleanupAfterEach();

const CONFIG = [
  "# the owner's comment, kept",
  "[fermix_core.providers.openai]",
  "primary = true",
  `api_key = "${KEY}" # a trailing comment`,
  "",
  "[fermix_core.transcription]",
  'backend = "openai"',
  'model = "whisper-1"',
  'openai_api_key = "@keyring"',
  "",
].join("\n");

describe("Voice notes page", () => {
  test("render: backend, model, key states as words; the key never appears", async () => {
    const f = cardsFixture(CONFIG, defer);
    const out = (await voicePage.render(f.deps, ctx())).html;
    expect(out).toContain('<option value="openai" selected>OpenAI</option>');
    expect(out).toContain('name="model" value="whisper-1"');
    expect(out).toContain('type="password" name="api_key" value=""');
    expect(out).toContain('data-key-state="api_key">set</span>');
    expect(out).toContain("<li>SpaceXAI key: not set</li>");
    expect(out).toContain("<li>Deepgram key: not set</li>");
    expect(out).toContain('name="csrf" value="tok"');
    expect(out).not.toContain(KEY);
  });

  test("xai hides the model; the OpenAI chat key shows as reused", async () => {
    const f = cardsFixture(
      ["[fermix_core.providers.xai]", `api_key = "${KEY}"`, "[fermix_core.transcription]", 'backend = "xai"', ""].join(
        "\n",
      ),
      defer,
    );
    const out = (await voicePage.render(f.deps, ctx())).html;
    expect(out).not.toContain('name="model"');
    expect(out).toContain("SpaceXAI takes no model");
    expect(out).toContain("<li>SpaceXAI key: reuses the chat provider&#39;s key</li>");
    expect(out).not.toContain(KEY);
  });

  test("bad values name the field and leave config.toml byte for byte", async () => {
    const f = cardsFixture(CONFIG, defer);
    const before = f.read();
    const cases: Array<[Record<string, string>, string]> = [
      [{ backend: "whisper" }, 'backend: "whisper" is not one of openai, xai, deepgram'],
      [{ backend: "openai", model: "two words" }, "model:"],
      [{ backend: "openai", api_key: "sk two" }, "API key: the API key contains spaces"],
      [{ backend: "deepgram" }, "API key: Deepgram needs its own key"],
    ];
    for (const [fields, error] of cases) {
      const r = await voicePage.submit!(form(fields), f.deps);
      expect(r.ok).toBe(false);
      expect(r.ok ? "" : r.error).toContain(error);
    }
    expect(f.read()).toBe(before);
    expect(f.stored.size).toBe(0);
  });

  test("switch to deepgram: the model snaps to nova-3, the key goes to its slot, comments kept", async () => {
    const f = cardsFixture(CONFIG, defer);
    const r = await voicePage.submit!(
      form({ backend: "deepgram", model: "whisper-1", api_key: ` ${DG_KEY} ` }),
      f.deps,
    );
    expect(r).toEqual({
      ok: true,
      notice:
        "voice notes: Deepgram (nova-3) saved; the key is stored in the OS keyring; applies to the next voice note",
    });
    const text = f.read();
    expect(text).toContain("# the owner's comment, kept");
    expect(text).toContain("# a trailing comment");
    expect(text).toContain('backend = "deepgram"');
    expect(text).toContain('model = "nova-3"');
    expect(text).toContain('deepgram_api_key = "@keyring"');
    expect(text).not.toContain(DG_KEY);
    expect([...f.stored]).toEqual([["DEEPGRAM_API_KEY", DG_KEY]]);
    // Then xai: modelless, so the shared model key goes; a blank key keeps deepgram's.
    expect(await voicePage.submit!(form({ backend: "xai", api_key: "" }), f.deps)).toMatchObject({ ok: true });
    expect(f.read()).not.toContain("model =");
    expect(f.read()).toContain('deepgram_api_key = "@keyring"');
    expect(f.stored.size).toBe(1);
  });

  test("the same backend keeps a typed model; a key alone is stored with a restart note", async () => {
    const f = cardsFixture(CONFIG, defer);
    expect(await voicePage.submit!(form({ backend: "openai", model: "gpt-4o-transcribe" }), f.deps)).toMatchObject({
      ok: true,
    });
    expect(f.read()).toContain('model = "gpt-4o-transcribe"');
    const before = f.read();
    const r = await voicePage.submit!(form({ backend: "openai", model: "gpt-4o-transcribe", api_key: KEY }), f.deps);
    expect(r).toMatchObject({ ok: true, notice: expect.stringContaining("fermix restart") });
    expect(f.read()).toBe(before);
    expect(f.stored.get("OPENAI_TRANSCRIPTION_API_KEY")).toBe(KEY);
  });

  test('secret_store = "file": the key lands in the file store, never in config.toml', async () => {
    const f = cardsFixture(["[fermix_core]", 'secret_store = "file"', ""].join("\n"), defer, { realStore: true });
    const r = await voicePage.submit!(form({ backend: "openai", api_key: KEY }), f.deps);
    expect(r).toMatchObject({ ok: true, notice: expect.stringContaining("file store") });
    expect(readFileSync(join(f.secretsDir, "OPENAI_TRANSCRIPTION_API_KEY"), "utf8")).toBe(KEY);
    expect(f.read()).toContain('openai_api_key = "@keyring"');
    expect(f.read()).toContain('model = "gpt-4o-mini-transcribe"');
    expect(f.read()).not.toContain(KEY);
  });

  test("a table config.toml cannot take in place: refused, nothing stored, the key scrubbed from the error", async () => {
    const toml = ["[fermix_core]", 'transcription = { backend = "openai" }', ""].join("\n");
    const f = cardsFixture(toml, defer);
    const r = await voicePage.submit!(form({ backend: "deepgram", api_key: DG_KEY }), f.deps);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error).toContain("edit it by hand");
    expect(r.ok ? "" : r.error).not.toContain(DG_KEY);
    expect(f.read()).toBe(toml);
    expect(f.stored.size).toBe(0);
  });
});

describe("Voice notes: the model a switch writes", () => {
  test("from nothing configured, the shown openai default sent with deepgram snaps to nova-3", async () => {
    const f = cardsFixture("", defer);
    const r = await voicePage.submit!(
      form({ backend: "deepgram", model: "gpt-4o-mini-transcribe", api_key: DG_KEY }),
      f.deps,
    );
    expect(r).toMatchObject({ ok: true });
    expect(f.read()).toContain('model = "nova-3"');
  });
});
