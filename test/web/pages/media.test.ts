import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseConfig } from "../../../src/config/load.ts";
import { mediaPage } from "../../../src/web/pages/media.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { cardsFixture, ctx, form } from "./_cards-fixture.ts";

const OPENAI = "sk-proj-media0123456789abcdefghijklmnopqrstuv";
const XAI = "xai-media0123456789abcdefghijklmnopqrstuvwxyz";
const defer = cleanupAfterEach();
const CONFIG = [
  "# my providers",
  "[fermix_core.providers.anthropic]",
  "primary = true",
  'api_key = "sk-ant-x"',
  "[fermix_core.providers.openai]",
  `api_key = "${OPENAI}"`,
  "",
].join("\n");

describe("Media page", () => {
  test("render: the backend picker with the default model, the chat key shown as set, never the key", async () => {
    const f = cardsFixture(CONFIG, defer);
    const out = (await mediaPage.render(f.deps, ctx())).html;
    expect(out).toContain("No image backend is set");
    expect(out).toContain('name="model" value="gpt-image-2"');
    expect(out).toContain('data-key-state="api_key">set</span>');
    expect(out).toContain("<li>SpaceXAI key: not set</li>");
    expect(out).not.toContain(OPENAI);
  });

  test("bad values name the field and leave config.toml byte for byte", async () => {
    const f = cardsFixture(CONFIG, defer);
    for (const [fields, error] of [
      [{ backend: "dalle" }, 'backend: "dalle" is not one of openai, xai, google, openai_codex'],
      [{ backend: "xai", model: "a b" }, "model:"],
      [{ backend: "xai", api_key: "x y" }, "API key:"],
    ] as Array<[Record<string, string>, string]>) {
      const r = await mediaPage.submit!(form(fields), f.deps);
      expect(r.ok ? "" : r.error).toContain(error);
    }
    expect(f.read()).toBe(CONFIG);
  });

  test("xai with a key: the SpaceXAI chat slot, a provider block that stays valid and is not made primary", async () => {
    const f = cardsFixture(CONFIG, defer);
    const r = await mediaPage.submit!(form({ backend: "xai", model: "gpt-image-2", api_key: XAI }), f.deps);
    expect(r).toMatchObject({ ok: true, notice: expect.stringContaining("the SpaceXAI Grok key is stored") });
    const text = f.read();
    expect(text.startsWith(CONFIG)).toBe(true);
    const config = parseConfig(text, "config.toml");
    expect(config.fermix_core?.tools?.generate_image).toEqual({ backend: "xai", model: "grok-imagine-image-quality" });
    expect(config.fermix_core?.providers?.xai).toEqual({ api_key: "@keyring" });
    expect(config.fermix_core?.providers?.anthropic?.primary).toBe(true);
    expect(f.stored.get("XAI_API_KEY")).toBe(XAI);
    expect(text).not.toContain(XAI);
    // Blank keeps: back to openai, whose chat key (plaintext here) is left as it is.
    expect(await mediaPage.submit!(form({ backend: "openai", api_key: "" }), f.deps)).toMatchObject({ ok: true });
    expect(f.read()).toContain(`api_key = "${OPENAI}"`);
    expect(parseConfig(f.read(), "c").fermix_core?.tools?.generate_image?.model).toBe("gpt-image-2");
  });

  test("openai_codex: no key field, the sign-in state instead; a key is refused; saved without one", async () => {
    const f = cardsFixture(`${CONFIG}[fermix_core.tools.generate_image]\nbackend = "openai_codex"\n`, defer);
    let out = (await mediaPage.render(f.deps, ctx())).html;
    expect(out).toContain("In use: <strong>ChatGPT plan (Codex)</strong>");
    expect(out).toContain('name="model" value="gpt-5.6-terra"');
    expect(out).not.toContain('name="api_key"');
    expect(out).toContain("<li>ChatGPT plan (Codex): not signed in (run fermix auth login --provider codex)</li>");
    const before = f.read();
    const keyed = await mediaPage.submit!(form({ backend: "openai_codex", api_key: "sk-not-for-codex-0123" }), f.deps);
    expect(keyed.ok ? "" : keyed.error).toContain("takes no key: sign in with `fermix auth login --provider codex`");
    expect(f.read()).toBe(before);

    const entry = { auth_mode: "oauth_pkce", tokens: { access_token: "at", refresh_token: "rt" }, status: "ready" };
    writeFileSync(
      join(dirname(f.file), "auth.json"),
      JSON.stringify({ version: 2, providers: { openai_codex: entry } }),
    );
    out = (await mediaPage.render(f.deps, ctx())).html;
    expect(out).toContain("<li>ChatGPT plan (Codex): signed in</li>");
    expect(await mediaPage.submit!(form({ backend: "openai_codex", model: "gpt-5.5" }), f.deps)).toMatchObject({
      ok: true,
      notice: "media: image backend openai_codex (gpt-5.5) saved",
    });
    expect(parseConfig(f.read(), "c").fermix_core?.tools?.generate_image).toEqual({
      backend: "openai_codex",
      model: "gpt-5.5",
    });
  });

  test("google: its own key under generate_image", async () => {
    const f = cardsFixture("", defer);
    expect(await mediaPage.submit!(form({ backend: "google", api_key: "AIzaGoogle0123456789" }), f.deps)).toMatchObject(
      {
        ok: true,
      },
    );
    expect(parseConfig(f.read(), "c").fermix_core?.tools?.generate_image).toEqual({
      backend: "google",
      model: "gemini-3.1-flash-image",
      google_api_key: "@keyring",
    });
    expect(f.stored.get("GOOGLE_IMAGE_API_KEY")).toBe("AIzaGoogle0123456789");
  });
});
