import { type Html, html } from "../html.ts";
import { definePage, type FormOutcome, type RenderContext } from "../page.ts";
import type { PluginAction, PluginCard, PluginsWeb } from "../plugin-deps.ts";
import { noticeOf, refusal } from "./_notice.ts";
import { computerUseCard, switchComputerUse } from "./computer-use-card.ts";

const ACTIONS = ["install", "enable", "disable", "set_key", "oauth_client", "connect"] as const;
const PROVIDER = /^[a-z][a-z0-9_]{0,31}$/;

/**
 * The plugin catalog as cards (embedded signed catalog, installed, bundled), each with its readiness status and
 * small forms: install, enable, disable, an api_key plugin's key, and for an OAuth plugin its provider's client
 * (id and secret, in a "modal": the section ?oauth_client=<provider> opens, no script needed) and Connect, which
 * starts the CLI's PKCE login and sends the browser to the provider. First, the Computer Use card
 * (computer-use-card.ts): not a plugin, but this is where the spec puts its switch.
 */
export const pluginsPage = definePage({
  path: "/setup/plugins",
  title: "Plugins",
  async render(deps, ctx) {
    const { daemon, plugins } = await deps.plugins.list();
    return html`${noticeOf(ctx)}${clientModal(plugins, ctx)}<p>${
      daemon ? "Live states from the running daemon." : "States from config.toml (the daemon runs no plugin)."
    } Enable and disable apply on the agent's next turn.</p>
${deps.computerUse ? await computerUseCard(deps.computerUse, ctx) : ""}${plugins.map((p) => card(p, ctx))}`;
  },
  // Connect 303s to the provider; Chrome and Safari hold that redirect to the page's form-action.
  formTargets: (deps) => deps.plugins.formTargets?.() ?? [],
  async submit(form, deps) {
    const action = form.get("action") ?? "";
    if (action === "oauth_client") return saveClient(form, deps.plugins);
    if (action === "computer_use") return switchComputerUse(form, deps.computerUse);
    const name = form.get("name") ?? "";
    if (!/^[a-z0-9_-]{1,64}$/.test(name) || !(ACTIONS as readonly string[]).includes(action)) {
      return { ok: false, error: "unknown plugin or action" };
    }
    if (action === "connect") {
      try {
        // 303 to the provider: the login's loopback listener takes the redirect and links back here.
        return { ok: true, notice: "", location: await deps.plugins.connect(name) };
      } catch (err) {
        return refusal(err, []);
      }
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

async function saveClient(form: URLSearchParams, plugins: PluginsWeb): Promise<FormOutcome> {
  const provider = form.get("provider") ?? "";
  if (!PROVIDER.test(provider)) return { ok: false, error: "unknown OAuth provider" };
  const secret = form.get("client_secret") ?? "";
  try {
    const notice = await plugins.setOAuthClient({
      provider,
      clientId: form.get("client_id") ?? "",
      ...(secret.trim() ? { clientSecret: secret } : {}),
    });
    return { ok: true, notice };
  } catch (err) {
    return refusal(err, [secret, secret.trim()]);
  }
}

function card(p: PluginCard, ctx: RenderContext): Html {
  const cls = p.status === "ready" ? "ok" : p.status === "disabled" ? "" : "warn";
  const installed = p.source !== "catalog";
  const badge = p.status === "reauthorization_required" ? html` <strong class="fail">Reconnect needed</strong>` : "";
  return html`<section class="card"><h2>${p.name} <small>${p.version ?? ""} · ${p.source}</small>${badge}</h2>
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
  if (p.auth === "oauth2") return oauth(p, ctx);
  if (p.auth !== "api_key") return html``;
  const state = p.secret === "set" ? "set" : p.secret === "plaintext" ? "plaintext in config.toml" : "not set";
  return html`<form method="post" action="/setup/plugins"><input type="hidden" name="csrf" value="${ctx.csrf}"><input type="hidden" name="name" value="${p.name}"><input type="hidden" name="action" value="set_key">
<label>API key (${state}) <input type="password" name="secret" autocomplete="off" required></label> <button>Save key</button></form>`;
}

/** The OAuth client's state and the way to set it, then Connect once there is a client and the plugin is here. */
function oauth(p: PluginCard, ctx: RenderContext): Html {
  const o = p.oauth;
  const cli = html`From a terminal: <code>fermix plugins auth login ${p.name}</code>.`;
  if (!o) return html`<p>Sign-in: OAuth. ${cli}</p>`;
  const secret = o.secret === "set" ? "set" : o.secret === "plaintext" ? "plaintext in config.toml" : "not set";
  const client = html`<p>Sign-in: OAuth with ${o.provider}. Client id: ${o.clientId ? html`<code>${o.clientId}</code>` : "not set"}, secret ${secret}. <a href="/setup/plugins?oauth_client=${o.provider}#oauth-client">${
    o.clientId ? "Change" : "Set up"
  } the ${o.provider} OAuth client</a></p>`;
  if (!o.clientId || o.secret === "missing") return html`${client}<p>${cli}</p>`;
  if (p.source === "catalog") return html`${client}<p>Install ${p.name} to connect it.</p>`;
  const label = o.connecting
    ? "Connect (a sign-in is waiting in the browser)"
    : p.status === "ready" || p.status === "reauthorization_required"
      ? "Reconnect"
      : "Connect";
  return html`${client}<form method="post" action="/setup/plugins"><input type="hidden" name="csrf" value="${ctx.csrf}"><input type="hidden" name="name" value="${p.name}"><input type="hidden" name="action" value="connect"><button>${label}</button></form>
<p>${cli}</p>`;
}

/** The client id/secret form of the provider ?oauth_client= names; the secret is never sent back ("set", blank keeps). */
function clientModal(plugins: PluginCard[], ctx: RenderContext): Html {
  const provider = ctx.query.get("oauth_client");
  if (!provider) return html``;
  const users = plugins.filter((p) => p.oauth?.provider === provider);
  const o = users[0]?.oauth;
  if (!o) return html`<p class="fail" role="alert">No plugin here signs in with "${provider}".</p>`;
  const secretSet = o.secret !== "missing";
  return html`<section class="card" id="oauth-client" aria-label="${provider} OAuth client"><h2>${provider} OAuth client</h2>
<p>Used by ${users.map((p) => p.name).join(", ")}. Register an OAuth app with ${provider} whose redirect URI is a loopback address (<code>http://127.0.0.1/callback</code>, any port) and paste its client id and secret. The secret goes to the OS keyring (or the 0600 file store), never into config.toml.</p>
<form method="post" action="/setup/plugins"><input type="hidden" name="csrf" value="${ctx.csrf}"><input type="hidden" name="action" value="oauth_client"><input type="hidden" name="provider" value="${provider}">
<label>Client id <input name="client_id" value="${o.clientId ?? ""}" autocomplete="off" required></label>
<label>Client secret (${secretSet ? "set — leave blank to keep it" : "not set"}) <input type="password" name="client_secret" autocomplete="off"${
    secretSet ? "" : html` required`
  }></label>
<button>Save client</button> <a href="/setup/plugins">Cancel</a></form></section>`;
}
