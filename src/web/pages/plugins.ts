import { type Html, html } from "../html.ts";
import { definePage, type RenderContext } from "../page.ts";
import type { PluginAction, PluginCard } from "../plugin-deps.ts";
import { noticeOf, refusal } from "./_notice.ts";

const ACTIONS = ["install", "enable", "disable", "set_key"] as const;

/**
 * The plugin catalog as cards (embedded signed catalog, installed, bundled), each with its readiness status and
 * small forms: install, enable, disable, and an api_key plugin's key. OAuth sign-in is the CLI's for now.
 */
export const pluginsPage = definePage({
  path: "/setup/plugins",
  title: "Plugins",
  async render(deps, ctx) {
    const { daemon, plugins } = await deps.plugins.list();
    return html`${noticeOf(ctx)}<p>${
      daemon ? "Live states from the running daemon." : "States from config.toml (the daemon runs no plugin)."
    } Enable and disable apply on the agent's next turn.</p>
${plugins.map((p) => card(p, ctx))}`;
  },
  async submit(form, deps) {
    const name = form.get("name") ?? "";
    const action = form.get("action") ?? "";
    if (!/^[a-z0-9_-]{1,64}$/.test(name) || !(ACTIONS as readonly string[]).includes(action)) {
      return { ok: false, error: "unknown plugin or action" };
    }
    const secret = form.get("secret") ?? "";
    let request: PluginAction;
    if (action === "set_key") {
      if (!secret.trim()) return { ok: false, error: `type ${name}'s key first` };
      request = { action, name, secret: secret.trim() };
    } else {
      request = { action: action as "install" | "enable" | "disable", name };
    }
    try {
      return { ok: true, notice: await deps.plugins.act(request) };
    } catch (err) {
      return refusal(err, [secret, secret.trim()]);
    }
  },
});

function card(p: PluginCard, ctx: RenderContext): Html {
  const cls = p.status === "ready" ? "ok" : p.status === "disabled" ? "" : "warn";
  const installed = p.source !== "catalog";
  return html`<section class="card"><h2>${p.name} <small>${p.version ?? ""} · ${p.source}</small></h2>
<p>${p.description}</p>
<p>Status: <strong class="${cls}">${p.status}</strong>${p.detail ? html` (${p.detail})` : ""}${
    p.fix ? html` — <code>${p.fix}</code>` : ""
  }</p>
${!installed ? action(p.name, "install", "Install", ctx) : ""}${
  p.enabled ? action(p.name, "disable", "Disable", ctx) : action(p.name, "enable", "Enable", ctx)
}${auth(p, ctx)}</section>`;
}

function action(name: string, act: string, label: string, ctx: RenderContext): Html {
  return html`<form method="post" action="/setup/plugins"><input type="hidden" name="csrf" value="${ctx.csrf}"><input type="hidden" name="name" value="${name}"><input type="hidden" name="action" value="${act}"><button>${label}</button></form>`;
}

function auth(p: PluginCard, ctx: RenderContext): Html {
  if (p.auth === "oauth2") {
    return html`<p>Sign-in: OAuth. Connect with <code>fermix plugins auth login ${p.name}</code>.</p>`;
  }
  if (p.auth !== "api_key") return html``;
  const state = p.secret === "set" ? "set" : p.secret === "plaintext" ? "plaintext in config.toml" : "not set";
  return html`<form method="post" action="/setup/plugins"><input type="hidden" name="csrf" value="${ctx.csrf}"><input type="hidden" name="name" value="${p.name}"><input type="hidden" name="action" value="set_key">
<label>API key (${state}) <input type="password" name="secret" autocomplete="off" required></label> <button>Save key</button></form>`;
}
