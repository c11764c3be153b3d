import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadConfig, parseConfig } from "../../../src/config/load.ts";
import type { Config } from "../../../src/config/schema.ts";
import { createModelListing } from "../../../src/providers/model-listing.ts";
import type { RenderContext, WebDeps } from "../../../src/web/page.ts";
import { personalizationPage } from "../../../src/web/pages/personalization.ts";
import { providersPage, useModelListing } from "../../../src/web/pages/providers.ts";
import type { Personalization, ProviderForm, SetupActions } from "../../../src/web/setup-actions.ts";
import { startFakeModelListingApi } from "../../fake/model-listing-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";

const defer = cleanupAfterEach();

// The panes' live listings may only reach the fakes: the default Ollama and OpenRouter URLs are refused unsent.
beforeAll(() => {
  useModelListing(
    createModelListing({
      fetch: (input, init) =>
        new URL(input).hostname === "127.0.0.1" ? fetch(input, init) : Promise.reject(new Error("not a fake")),
    }),
  );
});

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
      "openai_codex=Not configured",
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
    // Anthropic is the primary here: its pane also has the Sub-agents fieldset, with its own effort select.
    expect(options(anthropic, "effort")).toEqual(["", "low", "medium", "high", "xhigh", "max"]);
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

/** Deps over a real config.toml in a temp home, for the writes the page makes itself (sub-agent routing). */
function fileDeps(toml: string) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const file = h.writeConfig(toml);
  const setup = {
    configFile: file,
    config: () => loadConfig(file),
    configureProvider: async () => ({ ok: true }),
    setPrimary: async () => ({ ok: true }),
    savePersonalization: async () => ({ ok: true }),
  } as SetupActions;
  return { deps: { setup } as WebDeps, file, text: () => readFileSync(file, "utf8") };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const options = (page: string, name: string) => {
  const select = new RegExp(`<select name="${name}"[^>]*>(.*?)</select>`, "s").exec(page)?.[1] ?? "";
  return [...select.matchAll(/<option value="([^"]*)"( selected)?/g)].map((m) => `${m[1]}${m[2] ? "*" : ""}`);
};

describe("the live model pickers", () => {
  test("Ollama reachable: the model is a select of the installed models only, the configured one selected", async () => {
    const fake = await startFakeModelListingApi({ ollama: ["llama3.2:latest", "qwen3:8b"] });
    defer(() => fake.close());
    const { deps } = fileDeps(`[fermix_core.providers.ollama]\nbase_url = "${fake.ollamaBaseUrl}"\nprimary = true\n`);
    const page = (await providersPage.render(deps, ctx("provider=ollama"))).html;
    expect(options(page, "model")).toEqual(["llama3.2:latest*", "qwen3:8b"]);
    expect(page).not.toContain('<input name="model"');
    expect(fake.requests.map((r) => r.path)).toEqual(["/api/tags"]);
  });

  test("Ollama unreachable: the error with ollama serve / install guidance and a free-form input", async () => {
    const port = await closedPort();
    const { deps } = fileDeps(`[fermix_core.providers.ollama]\nbase_url = "http://127.0.0.1:${port}/v1"\n`);
    const page = (await providersPage.render(deps, ctx("provider=ollama"))).html;
    expect(page).toContain("Ollama is not answering");
    expect(page).toContain("ollama serve");
    expect(page).toContain("https://ollama.com/download");
    expect(page).toContain('<input name="model" value="llama3.2" required>');
    expect(page).not.toContain('<select name="model"');
  });

  test("OpenRouter: tool-capable models newest first, the configured one selected; on failure the error and an input", async () => {
    const fake = await startFakeModelListingApi({
      openrouter: [
        { id: "anthropic/claude-sonnet-4.6", created: 1_760_000_000, tools: true },
        { id: "openai/gpt-5.5", created: 1_770_000_000, tools: true },
        { id: "some/base-model", created: 1_780_000_000, tools: false },
      ],
    });
    defer(() => fake.close());
    const { deps } = fileDeps(
      `[fermix_core.providers.openrouter]\nbase_url = "${fake.openrouterBaseUrl}"\ndefault_model = "anthropic/claude-sonnet-4.6"\n`,
    );
    const page = (await providersPage.render(deps, ctx("provider=openrouter"))).html;
    expect(options(page, "model")).toEqual(["openai/gpt-5.5", "anthropic/claude-sonnet-4.6*"]);
    expect(page).not.toContain('name="effort"');

    const broken = await startFakeModelListingApi({ mode: "error" });
    defer(() => broken.close());
    const failing = fileDeps(`[fermix_core.providers.openrouter]\nbase_url = "${broken.openrouterBaseUrl}"\n`);
    const fallback = (await providersPage.render(failing.deps, ctx("provider=openrouter"))).html;
    expect(fallback).toContain("Could not list OpenRouter&#39;s models");
    expect(fallback).toContain("HTTP 503");
    expect(fallback).toMatch(/<input name="model" value="[^"]+" required>/);
  });
});

describe("the Sub-agents fieldset", () => {
  const CONFIG_FILE = [
    "# my providers",
    "[fermix_core.providers.openai]",
    "primary = true",
    'default_model = "gpt-5.5"',
    "[fermix_core.providers.anthropic]",
    'default_model = "claude-sonnet-4-6"',
    "",
    "[fermix_core.routing]",
    "# keep: cron stays as it is",
    'cron_model = "gpt-5.4-mini"',
    "",
  ].join("\n");

  test("only on the primary provider's pane, with the efforts the model takes", async () => {
    const { deps } = fileDeps(CONFIG_FILE);
    const openai = (await providersPage.render(deps, ctx("provider=openai"))).html;
    expect(openai).toContain("<legend>Sub-agents</legend>");
    expect(openai).toContain('name="subagent_model" value="" placeholder="inherit: gpt-5.5"');
    expect(options(openai, "subagent_reasoning_effort")).toEqual(["", "none", "low", "medium", "high", "xhigh"]);
    const anthropic = (await providersPage.render(deps, ctx("provider=anthropic"))).html;
    expect(anthropic).not.toContain("Sub-agents");
  });

  test("writes [fermix_core.routing] in place, comments kept; empty fields remove the keys", async () => {
    const { deps, text } = fileDeps(CONFIG_FILE);
    const post = (fields: Record<string, string>) =>
      providersPage.submit!(new URLSearchParams({ provider: "openai", action: "subagents", ...fields }), deps);
    const saved = await post({ subagent_model: "gpt-5.4-mini", subagent_reasoning_effort: "low" });
    expect(saved).toMatchObject({ ok: true, redirect: "/setup/providers?provider=openai" });
    expect(text()).toBe(
      CONFIG_FILE.replace(
        'cron_model = "gpt-5.4-mini"\n',
        'cron_model = "gpt-5.4-mini"\nsubagent_model = "gpt-5.4-mini"\nsubagent_reasoning_effort = "low"\n',
      ),
    );
    const page = (await providersPage.render(deps, ctx("provider=openai"))).html;
    expect(page).toContain('name="subagent_model" value="gpt-5.4-mini"');
    expect(options(page, "subagent_reasoning_effort")).toContain("low*");
    expect(await post({ subagent_model: "", subagent_reasoning_effort: "" })).toMatchObject({ ok: true });
    expect(text()).toBe(CONFIG_FILE);
  });

  test("a mis-pairing, an effort the model refuses, or a non-primary pane is refused and nothing is written", async () => {
    const { deps, text } = fileDeps(CONFIG_FILE);
    const post = (fields: Record<string, string>) =>
      providersPage.submit!(new URLSearchParams({ action: "subagents", ...fields }), deps);
    const misPaired = await post({ provider: "openai", subagent_model: "claude-haiku-4-5" });
    expect(misPaired).toMatchObject({ ok: false });
    expect(!misPaired.ok && misPaired.error).toContain('"claude-haiku-4-5" is not a openai model');
    const effort = await post({ provider: "openai", subagent_model: "gpt-5.4-mini", subagent_reasoning_effort: "max" });
    expect(!effort.ok && effort.error).toContain('does not accept reasoning effort "max"');
    expect(await post({ provider: "openai", subagent_reasoning_effort: "extreme" })).toMatchObject({ ok: false });
    expect(await post({ provider: "anthropic", subagent_model: "claude-haiku-4-5" })).toMatchObject({
      ok: false,
      error: "the sub-agent settings are on the primary provider's pane",
    });
    expect(text()).toBe(CONFIG_FILE);
  });
});

describe("Apply & restart on the pages", () => {
  test("the providers page offers it, posting back to the pane it came from", async () => {
    const { deps } = fakeDeps(CONFIG);
    const page = (await providersPage.render(deps, ctx("provider=openai"))).html;
    expect(page).toContain('<form method="post" action="/setup/restart"');
    expect(page).toContain('name="back" value="/setup/providers?provider=openai"');
    expect(page).toContain("Apply &amp; restart");
  });
});
