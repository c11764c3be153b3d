import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../../src/config/load.ts";
import type { Config } from "../../../src/config/schema.ts";
import type { RenderContext, WebDeps } from "../../../src/web/page.ts";
import { personalizationPage } from "../../../src/web/pages/personalization.ts";
import { providersPage } from "../../../src/web/pages/providers.ts";
import type { Personalization, ProviderForm, SetupActions } from "../../../src/web/setup-actions.ts";

const KEY = "sk-proj-unit0123456789abcdefghijklmnopqrstuvwx";

function fakeDeps(toml: string) {
  const config: Config = parseConfig(toml, "config.toml");
  const calls: Array<ProviderForm | { primary: string } | Personalization> = [];
  const setup: SetupActions = {
    configFile: "config.toml",
    config: async () => config,
    configureProvider: async (form) => {
      calls.push(form);
      return form.apiKey === "wrong"
        ? { ok: false, error: "OpenAI failed the test: the key was refused" }
        : { ok: true };
    },
    setPrimary: async (primary) => {
      calls.push({ primary });
      return { ok: true };
    },
    savePersonalization: async (p) => {
      calls.push(p);
      return { ok: true };
    },
  };
  const deps = { setup } as WebDeps;
  return { deps, calls };
}

const ctx = (query = ""): RenderContext => ({ csrf: "tok", query: new URLSearchParams(query) });
const CONFIG = [
  "[fermix_core.providers.anthropic]",
  "primary = true",
  `api_key = "${KEY}"`,
  "[fermix_core.providers.openai]",
  `api_key = "${KEY}"`,
  'default_model = "gpt-5.5"',
  "",
].join("\n");

describe("providers page", () => {
  test("a card per provider in catalog order with its status; Set primary only on a fallback", async () => {
    const { deps } = fakeDeps(CONFIG);
    const page = (await providersPage.render(deps, ctx())).html;
    const ids = [...page.matchAll(/data-status="(\w+)">([^<]+)</g)].map((m) => `${m[1]}=${m[2]}`);
    expect(ids).toEqual([
      "openai=Fallback",
      "anthropic=Primary",
      "xai=Not configured",
      "openrouter=Not configured",
      "mistral=Not configured",
      "ollama=Not configured",
    ]);
    expect(page.match(/Set primary/g)?.length).toBe(1);
    expect(page).toContain('name="provider" value="openai"><input type="hidden" name="action" value="primary"');
    expect(page).not.toContain(KEY);
  });

  test("the form: the key is never pre-filled; effort lists only what the model accepts", async () => {
    const { deps } = fakeDeps(CONFIG);
    const openai = (await providersPage.render(deps, ctx("provider=openai"))).html;
    expect(openai).toContain("Configuring OpenAI");
    expect(openai).toContain('type="password" name="api_key" value=""');
    expect(openai).toContain(">set</span>");
    expect(openai).not.toContain(KEY);
    // gpt-5.5 tops out at xhigh: no max.
    const efforts = [...openai.matchAll(/<option value="(\w+)"/g)].map((m) => m[1]);
    expect(efforts).toEqual(["none", "low", "medium", "high", "xhigh"]);
    const anthropic = (await providersPage.render(deps, ctx("provider=anthropic"))).html;
    expect([...anthropic.matchAll(/<option value="(\w+)"/g)].map((m) => m[1])).toEqual([
      "low",
      "medium",
      "high",
      "xhigh",
      "max",
    ]);
    for (const id of ["openrouter", "mistral", "ollama"]) {
      const other = (await providersPage.render(deps, ctx(`provider=${id}`))).html;
      expect(other).not.toContain('name="effort"');
    }
    const ollama = (await providersPage.render(deps, ctx("provider=ollama"))).html;
    expect(ollama).not.toContain('name="api_key"');
  });

  test("submit: saving passes the key to setup; an empty key keeps it; an effort the model refuses is an error", async () => {
    const { deps, calls } = fakeDeps(CONFIG);
    const post = (fields: Record<string, string>) => providersPage.submit!(new URLSearchParams(fields), deps);
    const saved = await post({ provider: "openai", model: "gpt-5.5", api_key: ` ${KEY} `, effort: "high" });
    expect(saved).toMatchObject({ ok: true });
    expect(saved.ok && saved.notice).toContain("fermix restart");
    expect(calls.at(-1)).toEqual({ provider: "openai", model: "gpt-5.5", apiKey: KEY, effort: "high" });
    await post({ provider: "openai", model: "gpt-5.5", api_key: "" });
    expect((calls.at(-1) as ProviderForm).apiKey).toBeUndefined();
    expect(await post({ provider: "openai", model: "gpt-5.5", effort: "max" })).toMatchObject({ ok: false });
    expect(await post({ provider: "openai", model: "gpt-5.5", api_key: "wrong" })).toEqual({
      ok: false,
      error: "OpenAI failed the test: the key was refused",
    });
    expect(await post({ provider: "openai", action: "primary" })).toMatchObject({ ok: true });
    expect(calls.at(-1)).toEqual({ primary: "openai" });
    expect(await post({ provider: "nope", model: "x" })).toMatchObject({ ok: false });
  });
});

describe("personalization page", () => {
  test("renders the current answers escaped; a bad time zone is refused before any write", async () => {
    const { deps, calls } = fakeDeps(
      '[fermix_core.agent]\nname = "Ada<b>"\n[fermix_core.personalization]\ntimezone = "Europe/Paris"\n',
    );
    const page = (await personalizationPage.render(deps, ctx())).html;
    expect(page).toContain('value="Ada&lt;b&gt;"');
    expect(page).toContain('value="Europe/Paris"');
    const post = (fields: Record<string, string>) => personalizationPage.submit!(new URLSearchParams(fields), deps);
    expect(await post({ agent_name: "Ada", timezone: "Mars/Olympus" })).toMatchObject({ ok: false });
    expect(calls).toEqual([]);
    expect(
      await post({ agent_name: "Ada", timezone: "europe/paris", user_name: "Sam", communication_style: "terse" }),
    ).toMatchObject({ ok: true });
    expect(calls).toEqual([
      { agentName: "Ada", timezone: "Europe/Paris", userName: "Sam", communicationStyle: "terse" },
    ]);
  });
});
