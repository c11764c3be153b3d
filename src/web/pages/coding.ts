import { HARNESS_VENDORS } from "../../config/sections/harness.ts";
import { VENDOR_COMMANDS } from "../harness-deps.ts";
import { html } from "../html.ts";
import { definePage } from "../page.ts";
import { csrfField, select } from "./_fields.ts";
import { noticeOf, refusal } from "./_notice.ts";

const LABELS = { codex: "Codex", claude: "Claude Code" } as const;

/**
 * Setup → Coding Agents (spec: self-knowledge.md, Coding harness): the one-time consent ([fermix_core.harness]
 * approved) without which no harness tool is offered, and the default vendor. The vendor CLIs found on PATH are a hint.
 */
export const codingPage = definePage({
  path: "/setup/coding",
  title: "Coding agents",
  async render(deps, ctx) {
    const view = await deps.harness.view();
    return html`${noticeOf(ctx)}<p>fermix can hand repo coding work to your own Codex or Claude Code CLI, run inside the
repo. Until you allow it here, no coding-agent tool is offered and fermix does the coding with its own tools.</p>
${view.enabled ? "" : html`<p class="warn">[fermix_core.harness] enabled = false in config.toml turns coding agents off whatever this says.</p>`}
<ul>${HARNESS_VENDORS.map(
      (v) =>
        html`<li>${LABELS[v]} (<code>${VENDOR_COMMANDS[v]}</code>): ${
          view.found[v]
            ? html`<span class="ok">found at <code>${view.found[v]}</code></span>`
            : html`<span class="warn">not found on PATH</span>`
        }</li>`,
    )}</ul>
<form method="post" action="/setup/coding">${csrfField(ctx.csrf)}
<p><label><input type="checkbox" name="approved"${view.approved ? html` checked` : ""}> Allow fermix to run my coding CLIs</label></p>
<p><label>Default vendor ${select(
      "default_vendor",
      [{ value: "", label: "any found" }, ...HARNESS_VENDORS.map((v) => ({ value: v, label: LABELS[v] }))],
      view.defaultVendor ?? "",
    )}</label></p>
<p><button>Save</button> <small>The daemon picks this up on <code>fermix restart</code>.</small></p></form>`;
  },
  async submit(form, deps) {
    const rawVendor = form.get("default_vendor") ?? "";
    if (rawVendor && !(HARNESS_VENDORS as readonly string[]).includes(rawVendor)) {
      return { ok: false, error: `default_vendor: "${rawVendor}" is not one of ${HARNESS_VENDORS.join(", ")}` };
    }
    try {
      const notice = await deps.harness.save({
        approved: form.get("approved") === "on",
        defaultVendor: (rawVendor || undefined) as (typeof HARNESS_VENDORS)[number] | undefined,
      });
      return { ok: true, notice };
    } catch (err) {
      return refusal(err, []);
    }
  },
});
