import { checkName, checkTimezone, DEFAULT_AGENT_NAME, DEFAULT_TIMEZONE } from "../../setup/validate.ts";
import { html } from "../html.ts";
import { definePage } from "../page.ts";
import { RESTART_NOTICE } from "./providers.ts";
import { restartButton } from "./restart.ts";

const MAX_STYLE = 500;

/** Who the assistant is and who it talks to: [fermix_core.agent] name and [fermix_core.personalization]. */
export const personalizationPage = definePage({
  path: "/setup/personalization",
  title: "Personalization",
  async render(deps, ctx) {
    const core = (await deps.setup.config()).fermix_core;
    const p = core?.personalization;
    return html`${ctx.notice ? html`<p class="ok">${ctx.notice}</p>` : ""}${ctx.error ? html`<p class="fail">${ctx.error}</p>` : ""}
<form method="post" action="/setup/personalization"><input type="hidden" name="csrf" value="${ctx.csrf}">
<p><label>Assistant's name <input name="agent_name" value="${core?.agent?.name ?? DEFAULT_AGENT_NAME}" required></label></p>
<p><label>Your name <input name="user_name" value="${p?.user_name ?? ""}"></label></p>
<p><label>Time zone (IANA, such as Europe/Paris) <input name="timezone" value="${p?.timezone ?? DEFAULT_TIMEZONE}" required></label></p>
<p><label>Communication style <textarea name="communication_style" rows="3">${p?.communication_style ?? ""}</textarea></label></p>
<p><button>Save</button></p></form>${restartButton(ctx.csrf, "/setup/personalization")}`;
  },
  async submit(form, deps) {
    const agentName = checkName(form.get("agent_name") ?? "", "the assistant's name");
    if (!agentName.ok) return { ok: false, error: agentName.error };
    const timezone = checkTimezone(form.get("timezone") ?? "");
    if (!timezone.ok) return { ok: false, error: timezone.error };
    const rawUser = (form.get("user_name") ?? "").trim();
    const userName = rawUser ? checkName(rawUser, "your name") : undefined;
    if (userName && !userName.ok) return { ok: false, error: userName.error };
    const style = (form.get("communication_style") ?? "").trim();
    if (style.length > MAX_STYLE) {
      return { ok: false, error: `the communication style is longer than ${MAX_STYLE} characters` };
    }
    const done = await deps.setup.savePersonalization({
      agentName: agentName.value,
      timezone: timezone.value,
      userName: userName?.value,
      communicationStyle: style || undefined,
    });
    if (!done.ok) return done;
    return { ok: true, notice: `saved; ${RESTART_NOTICE}` };
  },
});
