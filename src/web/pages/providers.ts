import type { Config, ProviderBlock } from "../../config/schema.ts";
import { findProvider, PROVIDERS, type ProviderDescriptor } from "../../providers/descriptors.ts";
import { resolveEffort } from "../../providers/effort.ts";
import { EFFORTS, type Effort } from "../../providers/types.ts";
import { currentPrimary } from "../../setup/answers.ts";
import { checkApiKey, checkBaseUrl, checkModel } from "../../setup/validate.ts";
import { type Html, html } from "../html.ts";
import { definePage, type RenderContext } from "../page.ts";

export const RESTART_NOTICE = "run fermix restart for the daemon to use it";

type Status = "Primary" | "Fallback" | "Not configured";

/** The levels this provider's model accepts: the provider's [floor, ceiling] cut by the model's own ceiling. */
export function effortLevels(p: ProviderDescriptor, model: string): Effort[] {
  return p.effort ? EFFORTS.filter((e) => resolveEffort(p, model, e) === e) : [];
}

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
  async render(deps, ctx) {
    const config = await deps.setup.config();
    const picked = findProvider(ctx.query.get("provider") ?? "");
    return html`${flash(ctx)}<p>Every configured provider other than the primary is a fallback, in this order.
Changes need <code>fermix restart</code> before the daemon uses them.</p>
<div class="cards">${PROVIDERS.map((p) => card(p, config, ctx.csrf))}</div>
${picked ? form(picked, config, ctx.csrf) : html``}`;
  },
  async submit(form, deps) {
    const provider = findProvider(form.get("provider") ?? "");
    if (!provider) return { ok: false, error: "unknown provider" };
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

function form(p: ProviderDescriptor, config: Config, csrf: string): Html {
  const block = blocksOf(config)[p.id] ?? {};
  const model = block.default_model ?? p.defaultModel;
  const keyField = p.keyless
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
  return html`<section><h2>Configuring ${p.label}</h2>
<form method="post" action="/setup/providers"><input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="provider" value="${p.id}">
${keyField}<p><label>Default model <input name="model" value="${model}" required></label></p>
<p><label>Base URL <input name="base_url" value="${block.base_url ?? ""}" placeholder="${p.defaultBaseUrl}"></label></p>
${effortField}<p><button>Test, save and make primary</button></p></form></section>`;
}
