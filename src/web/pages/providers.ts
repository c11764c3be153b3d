import type { Config } from "../../config/schema.ts";
import { EFFORTS, type Effort, type ProviderBlock } from "../../config/sections/providers.ts";
import { findProvider, PROVIDERS, type ProviderDescriptor } from "../../providers/descriptors.ts";
import { effortLevels } from "../../providers/effort.ts";
import { createModelListing, sameOllamaModel } from "../../providers/model-listing.ts";
import type { ModelListing, ModelListingService } from "../../providers/model-listing-contract.ts";
import { currentPrimary } from "../../setup/answers.ts";
import { checkApiKey, checkBaseUrl, checkModel } from "../../setup/validate.ts";
import { type Html, html } from "../html.ts";
import { definePage, type FormOutcome, type RenderContext, type WebDeps } from "../page.ts";
import type { SignInView } from "../provider-sign-in.ts";
import { saveSubagentRouting, subagentEffortLevels, subagentProvider } from "../subagent-routing.ts";
import { restartButton } from "./restart.ts";

export const RESTART_NOTICE = "run fermix restart for the daemon to use it";

/** The live model pickers (Ollama's /api/tags, OpenRouter's catalogue), shared so the catalogue cache is too. */
let listing: ModelListingService = createModelListing();

/** For tests: a listing with its own fetch, timeout or clock. */
export function useModelListing(next: ModelListingService): void {
  listing = next;
}

type Status = "Primary" | "Fallback" | "Not configured";

/** Shared with the CLI wizard (src/providers/effort.ts); re-exported for the page's callers. */
export { effortLevels };

function blocksOf(config: Config): Record<string, ProviderBlock | undefined> {
  return (config.fermix_core?.providers ?? {}) as Record<string, ProviderBlock | undefined>;
}

export function providerStatus(config: Config, id: string): Status {
  if (!blocksOf(config)[id]) return "Not configured";
  return currentPrimary(config) === id ? "Primary" : "Fallback";
}

/**
 * The provider selector (spec: self-knowledge.md, Providers): a card per provider in catalog order with its status;
 * `?provider=ID` opens its form, and saving probes the key once, writes it, and makes the provider primary.
 * A key is never sent back: a configured one shows as "set" and an empty field keeps it.
 */
export const providersPage = definePage({
  path: "/setup/providers",
  title: "Providers",
  formTargets: (deps) => deps.signIn?.formTargets() ?? [],
  async render(deps, ctx) {
    const config = await deps.setup.config();
    const picked = findProvider(ctx.query.get("provider") ?? "");
    const back = picked ? `/setup/providers?provider=${picked.id}` : "/setup/providers";
    return html`${flash(ctx)}<p>Every configured provider other than the primary is a fallback, in this order.
Changes need a restart of the daemon (<code>fermix restart</code>, or Apply &amp; restart below) before it uses them.</p>
<div class="cards">${PROVIDERS.map((p) => card(p, config, ctx.csrf))}</div>
${picked ? await form(picked, config, ctx.csrf, deps) : html``}${restartButton(ctx.csrf, back)}`;
  },
  async submit(form, deps) {
    const provider = findProvider(form.get("provider") ?? "");
    if (!provider) return { ok: false, error: "unknown provider" };
    if (form.get("action") === "subagents") return saveSubagents(provider, form, deps);
    const signIn = await signInAction(provider.id, form, deps);
    if (signIn) return signIn;
    if (form.get("action") === "primary") {
      const done = await deps.setup.setPrimary(provider.id);
      if (!done.ok) return done;
      return { ok: true, notice: `${provider.label} is now the primary provider; ${RESTART_NOTICE}` };
    }
    const model = checkModel(form.get("model") ?? "");
    if (!model.ok) return { ok: false, error: model.error };
    const rawUrl = (form.get("base_url") ?? "").trim();
    const baseUrl = rawUrl ? checkBaseUrl(rawUrl) : undefined;
    if (baseUrl && !baseUrl.ok) return { ok: false, error: baseUrl.error };
    const rawKey = form.get("api_key") ?? "";
    const key = !provider.keyless && rawKey.trim() ? checkApiKey(rawKey) : undefined;
    if (key && !key.ok) return { ok: false, error: key.error };
    const rawEffort = form.get("effort") ?? "";
    const levels = effortLevels(provider, model.value);
    if (rawEffort && !levels.includes(rawEffort as Effort)) {
      return { ok: false, error: `${model.value} does not accept reasoning effort "${rawEffort}"` };
    }
    const done = await deps.setup.configureProvider({
      provider: provider.id,
      model: model.value,
      baseUrl: baseUrl?.value,
      apiKey: key?.value,
      effort: rawEffort ? (rawEffort as Effort) : undefined,
    });
    if (!done.ok) return { ok: false, error: done.error };
    return {
      ok: true,
      notice: `${provider.label} is saved and is now the primary provider; ${RESTART_NOTICE}`,
      redirect: `/setup/providers?provider=${provider.id}`,
    };
  },
});

function flash(ctx: RenderContext): Html {
  return html`${ctx.notice ? html`<p class="ok">${ctx.notice}</p>` : ""}${
    ctx.error ? html`<p class="fail">${ctx.error}</p>` : ""
  }`;
}

function card(p: ProviderDescriptor, config: Config, csrf: string): Html {
  const status = providerStatus(config, p.id);
  const cls = status === "Primary" ? "ok" : status === "Fallback" ? "" : "warn";
  const primaryButton =
    status === "Fallback"
      ? html`<form method="post" action="/setup/providers"><input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="provider" value="${p.id}"><input type="hidden" name="action" value="primary">
<button>Set primary</button></form>`
      : html``;
  return html`<section class="card" id="provider-${p.id}"><h2>${p.label}</h2>
<p class="${cls}" data-status="${p.id}">${status}</p>
<p><a href="/setup/providers?provider=${p.id}">Configure</a></p>${primaryButton}</section>`;
}

async function form(p: ProviderDescriptor, config: Config, csrf: string, deps: WebDeps): Promise<Html> {
  const block = blocksOf(config)[p.id] ?? {};
  const model = block.default_model ?? p.defaultModel;
  // Codex signs in (fermix auth login --provider codex); it has no key to enter.
  const noKey = p.keyless || !p.authModes.includes("api_key");
  const keyField = noKey
    ? html``
    : html`<p><label>API key <input type="password" name="api_key" value="" autocomplete="off"></label>
${block.api_key !== undefined ? html`<span class="ok">set</span> (leave empty to keep it)` : html`<span>not set</span>`}
${p.keyHelp ? html` · get one at <a href="${p.keyHelp}" rel="noreferrer">${p.keyHelp}</a>` : ""}</p>`;
  const levels = effortLevels(p, model);
  const effortField = levels.length
    ? html`<p><label>Reasoning effort <select name="effort"><option value="">provider default</option>${levels.map(
        (e) => html`<option value="${e}"${block.reasoning_effort === e ? html` selected` : ""}>${e}</option>`,
      )}</select></label></p>`
    : html``;
  const listed = await liveModels(p, block);
  const primary = providerStatus(config, p.id) === "Primary";
  const signIn = deps.signIn ? await signInSection(p, await deps.signIn.view(p.id), csrf) : html``;
  return html`<section><h2>Configuring ${p.label}</h2>${signIn}
<form method="post" action="/setup/providers"><input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="provider" value="${p.id}">
${keyField}${modelField(p, model, listed)}
<p><label>Base URL <input name="base_url" value="${block.base_url ?? ""}" placeholder="${p.defaultBaseUrl}"></label></p>
${effortField}<p><button>Test, save and make primary</button></p></form></section>
${primary ? subagentsForm(p, config, model, listed, csrf) : html``}`;
}

/** Ollama and OpenRouter list their models live; the others take the model id as typed. */
async function liveModels(p: ProviderDescriptor, block: ProviderBlock): Promise<ModelListing | undefined> {
  if (p.id === "ollama") return listing.ollama(block.base_url);
  if (p.id === "openrouter") return listing.openrouter(block.base_url);
  return undefined;
}

/**
 * The model as a <select> of what the server lists (Ollama: the installed models only; OpenRouter: tool-capable,
 * newest first, the configured model kept selectable), or a free-form input with the listing's error above it.
 */
function modelField(p: ProviderDescriptor, model: string, listed: ModelListing | undefined): Html {
  const input = html`<p><label>Default model <input name="model" value="${model}" required></label></p>`;
  if (!listed) return input;
  if (!listed.ok) return html`<p class="fail" role="alert">${listed.error}</p>${input}`;
  if (!listed.models.length) {
    const empty =
      p.id === "ollama"
        ? html`Ollama answers, but no model is pulled yet: <code>ollama pull ${p.defaultModel}</code>, then reload.`
        : html`OpenRouter lists no tool-capable model right now; type a model id.`;
    return html`<p class="warn">${empty}</p>${input}`;
  }
  const missing =
    p.id === "ollama" && !listed.models.some((m) => sameOllamaModel(m, model))
      ? html`<p class="warn">The configured model ${model} is not installed on this server: pick one below, or <code>ollama pull ${model}</code> and reload.</p>`
      : html``;
  return html`${missing}<p><label>Default model ${modelSelect("model", model, listed.models, p.id, false)}</label></p>`;
}

function modelSelect(name: string, current: string, models: string[], provider: string, inherit: boolean): Html {
  const same = (m: string) => (provider === "ollama" ? sameOllamaModel(m, current) : m === current);
  // OpenRouter's configured model stays pickable even when the live list lacks it; Ollama lists what is installed.
  const extra = current && provider !== "ollama" && !models.some(same) ? [current] : [];
  const options = [...extra, ...models].map(
    (m) =>
      html`<option value="${m}"${same(m) ? html` selected` : ""}>${m}${extra.includes(m) ? " (configured)" : ""}</option>`,
  );
  return html`<select name="${name}"${inherit ? "" : html` required`}>${
    inherit ? html`<option value="">inherit the main model</option>` : ""
  }${options}</select>`;
}

/**
 * [fermix_core.routing] subagent_model / subagent_reasoning_effort, on the primary's pane only (spec: sub-agents
 * inherit the main model; a model without a provider runs on the primary). Empty fields inherit.
 */
function subagentsForm(
  p: ProviderDescriptor,
  config: Config,
  mainModel: string,
  listed: ModelListing | undefined,
  csrf: string,
): Html {
  const routing = config.fermix_core?.routing;
  const current = routing?.subagent_model ?? "";
  const runsOn = subagentProvider(config, p.id);
  const levels = subagentEffortLevels(runsOn, current || mainModel);
  const elsewhere =
    runsOn !== p.id
      ? html`<p class="warn">config.toml sets <code>subagent_provider = "${runsOn}"</code>: sub-agents run on ${runsOn}, so the model must be one of its models.</p>`
      : html``;
  const modelInput =
    listed?.ok && listed.models.length && runsOn === p.id
      ? modelSelect("subagent_model", current, listed.models, p.id, true)
      : html`<input name="subagent_model" value="${current}" placeholder="inherit: ${mainModel}">`;
  const effort = levels.length
    ? html`<p><label>Sub-agents' reasoning effort <select name="subagent_reasoning_effort"><option value="">inherit</option>${levels.map(
        (e) =>
          html`<option value="${e}"${routing?.subagent_reasoning_effort === e ? html` selected` : ""}>${e}</option>`,
      )}</select></label></p>`
    : html``;
  return html`<section><h2>Sub-agents</h2>
<form method="post" action="/setup/providers"><input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="provider" value="${p.id}"><input type="hidden" name="action" value="subagents">
<fieldset><legend>Sub-agents</legend><p>Sub-agents run the main model (${mainModel}) unless a smaller model or a lower
thinking level is set here ([fermix_core.routing] in config.toml). Empty fields inherit.</p>${elsewhere}
<p><label>Sub-agents' model ${modelInput}</label></p>
${effort}<p><button>Save sub-agent settings</button></p></fieldset></form></section>`;
}

async function saveSubagents(provider: ProviderDescriptor, form: URLSearchParams, deps: WebDeps) {
  const config = await deps.setup.config();
  const primary = currentPrimary(config);
  if (primary !== provider.id) {
    return { ok: false as const, error: "the sub-agent settings are on the primary provider's pane" };
  }
  const rawModel = (form.get("subagent_model") ?? "").trim();
  const model = rawModel ? checkModel(rawModel) : undefined;
  if (model && !model.ok) return { ok: false as const, error: model.error };
  const rawEffort = (form.get("subagent_reasoning_effort") ?? "").trim();
  if (rawEffort && !(EFFORTS as readonly string[]).includes(rawEffort)) {
    return { ok: false as const, error: `"${rawEffort}" is not a reasoning effort (${EFFORTS.join(", ")})` };
  }
  const mainModel = blocksOf(config)[provider.id]?.default_model ?? provider.defaultModel;
  const done = saveSubagentRouting(deps.setup.configFile, config, primary, mainModel, {
    model: model?.value,
    effort: rawEffort ? (rawEffort as Effort) : undefined,
  });
  if (!done.ok) return done;
  return {
    ok: true as const,
    notice: `sub-agent settings saved; ${RESTART_NOTICE}`,
    redirect: `/setup/providers?provider=${provider.id}`,
  };
}

/**
 * The API-key vs sign-in picker (spec: self-knowledge.md, Providers): Codex and Grok connect in the browser (the
 * provider's page, then its redirect to fermix's loopback listener), Claude takes a setup token or Claude Code's
 * login. A stored sign-in is used only while auth_mode = "oauth"; the picker flips it without losing either.
 */
async function signInSection(p: ProviderDescriptor, view: SignInView | undefined, csrf: string): Promise<Html> {
  if (!view) return html``;
  const hidden = html`<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="provider" value="${p.id}">`;
  const status = html`<p>Subscription sign-in: <span class="${view.signedIn ? "ok" : view.reconnect ? "fail" : "warn"}" data-sign-in="${p.id}">${
    view.reconnect ? "Reconnect needed — " : ""
  }${view.status}</span>${view.pending ? html` <span class="warn">(waiting for the provider's redirect; reload this page once you approved)</span>` : ""}</p>${
    view.lastError ? html`<p class="fail">The last sign-in failed: ${view.lastError}</p>` : ""
  }`;
  const connect =
    view.kind === "browser"
      ? html`<form method="post" action="/setup/providers">${hidden}<input type="hidden" name="action" value="sign_in">
<button>${view.signedIn ? "Sign in again" : `Connect ${p.label}`}</button></form>`
      : html`<form method="post" action="/setup/providers">${hidden}<input type="hidden" name="action" value="setup_token">
<p><label>Claude setup token (from <code>claude setup-token</code>) <input type="password" name="setup_token" value="" autocomplete="off"></label>
<button>Sign in with the token</button></p></form>
<form method="post" action="/setup/providers">${hidden}<input type="hidden" name="action" value="import_claude_code">
<button>Import Claude Code's login</button></form>`;
  const picker = p.authModes.includes("api_key")
    ? html`<form method="post" action="/setup/providers">${hidden}<input type="hidden" name="action" value="use_mode">
<p>Use: <label><input type="radio" name="mode" value="api_key"${view.mode === "api_key" ? html` checked` : ""}> the API key</label>
<label><input type="radio" name="mode" value="oauth"${view.mode === "oauth" ? html` checked` : ""}> the subscription sign-in</label>
<button>Switch</button></p></form>`
    : html``;
  return html`<section class="card" id="sign-in-${p.id}"><h3>Subscription sign-in</h3>${status}${connect}${picker}</section>`;
}

async function signInAction(provider: string, form: URLSearchParams, deps: WebDeps): Promise<FormOutcome | undefined> {
  const action = form.get("action");
  if (!["sign_in", "setup_token", "import_claude_code", "use_mode"].includes(action ?? "")) return undefined;
  const signIn = deps.signIn;
  if (!signIn || !(await signIn.view(provider)))
    return { ok: false, error: "this provider has no subscription sign-in" };
  const token = form.get("setup_token") ?? "";
  try {
    const back = `/setup/providers?provider=${provider}`;
    if (action === "sign_in") return { ok: true, notice: "", location: await signIn.connect(provider) };
    if (action === "setup_token") return { ok: true, notice: await signIn.setupToken(token), redirect: back };
    if (action === "import_claude_code") return { ok: true, notice: await signIn.importClaudeCode(), redirect: back };
    const mode = form.get("mode");
    if (mode !== "api_key" && mode !== "oauth") return { ok: false, error: "pick the API key or the sign-in" };
    return { ok: true, notice: await signIn.useMode(provider, mode), redirect: back };
  } catch (err) {
    // A refused token is never echoed back.
    const message = (err as Error).message ?? String(err);
    return { ok: false, error: token ? message.replaceAll(token.trim(), "[redacted]") : message };
  }
}
