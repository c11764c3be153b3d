import type { ComputerUseWeb } from "../computer-use-deps.ts";
import { type Html, html } from "../html.ts";
import type { FormOutcome, RenderContext } from "../page.ts";
import { csrfField } from "./_fields.ts";
import { refusal } from "./_notice.ts";
import { restartButton } from "./restart.ts";

const BACK = "/setup/plugins";

/**
 * The Plugins page's Computer Use card (spec: plugins.md, "Computer Use"): Off, Ready, or Needs setup with the reason
 * and the fix from the same readiness `fermix doctor` shows, and one button that switches
 * [fermix_core.computer_use] enabled. The safety rules themselves stay in config.toml and [sandbox] mode.
 */
export async function computerUseCard(web: ComputerUseWeb, ctx: RenderContext): Promise<Html> {
  const s = await web.view();
  const on = s.state !== "off";
  const status =
    s.state === "off"
      ? html`<strong data-status="computer-use">Off</strong>`
      : s.state === "ready" && s.browser
        ? html`<strong class="ok" data-status="computer-use">Ready</strong> (browser mode: the browser tool's page, Chromium <code>${s.browser}</code>)`
        : s.state === "ready"
          ? html`<strong class="ok" data-status="computer-use">Ready</strong> (display <code>${s.display}</code>, ${s.width}×${s.height} screen)`
          : html`<strong class="warn" data-status="computer-use">Needs setup: ${s.reason}</strong> — ${s.fix}`;
  return html`<section class="card" id="computer-use" aria-label="Computer Use"><h2>Computer Use <small>experimental · Linux (X11)</small></h2>
<p>Lets the agent see the screen and work the mouse and keyboard of an X display (Xvfb or your desktop session), for
you only: never for guests, sub-agents or scheduled jobs. <code>[sandbox] mode</code> sets what it may do (strict:
screenshots, zoom and wait only), and it asks you before a consequential click or keystroke.</p>
<p>Status: ${status}</p>
<form method="post" action="${BACK}">${csrfField(ctx.csrf)}<input type="hidden" name="action" value="computer_use"><input type="hidden" name="enabled" value="${
    on ? "false" : "true"
  }"><button>${on ? "Turn off" : "Turn on"}</button></form>${restartButton(ctx.csrf, BACK)}</section>`;
}

/** The card's button: `enabled` is "true" or "false", nothing else. */
export async function switchComputerUse(form: URLSearchParams, web: ComputerUseWeb | undefined): Promise<FormOutcome> {
  const enabled = form.get("enabled");
  if (!web) return { ok: false, error: "computer use cannot be switched here" };
  if (enabled !== "true" && enabled !== "false") return { ok: false, error: 'enabled: must be "true" or "false"' };
  try {
    return { ok: true, notice: await web.setEnabled(enabled === "true") };
  } catch (err) {
    return refusal(err, []);
  }
}
