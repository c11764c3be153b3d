import type { ChannelCard } from "../channel-deps.ts";
import { type Html, html } from "../html.ts";
import { definePage, type RenderContext } from "../page.ts";
import { noticeOf, refusal } from "./_notice.ts";
import { restartButton } from "./restart.ts";

/**
 * A card per chat channel: enabled in config.toml, what the daemon is doing with it, the owner id and the token
 * field(s) (never pre-filled), Save (tested first, as `fermix setup --channel` does) and Test. Changes apply on
 * `fermix restart`.
 */
export const channelsPage = definePage({
  path: "/setup/channels",
  title: "Channels",
  async render(deps, ctx) {
    const cards = await deps.channels.list();
    return html`${noticeOf(ctx)}<p class="warn">Channel changes apply when the daemon restarts: <code>fermix restart</code>.</p>
${restartButton(ctx.csrf, "/setup/channels")}${cards.map((c) => card(c, ctx))}`;
  },
  async submit(form, deps) {
    const name = form.get("name") ?? "";
    const action = form.get("action");
    const cards = await deps.channels.list();
    const target = cards.find((c) => c.name === name);
    if (!target || (action !== "save" && action !== "test")) return { ok: false, error: "unknown channel or action" };
    const secrets = target.secrets.map((s) => form.get(s.key) ?? "");
    try {
      if (action === "test") {
        const check = await deps.channels.test(name);
        return check.ok
          ? { ok: true, notice: `${name}: ok: ${check.detail}` }
          : { ok: false, error: `${name}: ${check.detail} (fix: ${check.fix})` };
      }
      const fields: Record<string, string> = {};
      for (const f of [...target.ids, ...target.secrets]) fields[f.key] = form.get(f.key) ?? "";
      return { ok: true, notice: await deps.channels.save(name, fields) };
    } catch (err) {
      return refusal(
        err,
        secrets.flatMap((s) => [s, s.trim()]),
      );
    }
  },
});

function card(c: ChannelCard, ctx: RenderContext): Html {
  const running = c.state
    ? html`<strong class="${c.state.state === "running" ? "ok" : "warn"}">${c.state.state}</strong>${
        c.state.reason ? html` (${c.state.reason})` : ""
      }${c.state.degraded ? html` — ${c.state.degraded}` : ""}`
    : html`not running`;
  const hidden = html`<input type="hidden" name="csrf" value="${ctx.csrf}"><input type="hidden" name="name" value="${c.name}">`;
  const form = c.editable
    ? html`<form method="post" action="/setup/channels">${hidden}<input type="hidden" name="action" value="save">
${c.ids.map((f) => html`<p><label>${f.label} <input name="${f.key}" value="${f.value}" autocomplete="off"></label></p>`)}
${c.secrets.map(
  (s) =>
    html`<p><label>${s.label} (${s.set ? "set" : "not set"}) <input type="password" name="${s.key}" autocomplete="off"></label></p>`,
)}<p><button>Test and save</button> <small>Blank secrets keep the configured ones.</small></p></form>`
    : html`<p>Set up with <code>fermix setup --channel ${c.name}</code> on a terminal.</p>`;
  return html`<section class="card"><h2>${c.name}</h2>
<p>${c.enabled ? "Enabled" : "Disabled"} in config.toml; in the daemon: ${running}.</p>
${form}<form method="post" action="/setup/channels">${hidden}<input type="hidden" name="action" value="test"><button>Test</button></form></section>`;
}
