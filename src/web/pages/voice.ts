import { TRANSCRIPTION_BACKENDS } from "../../config/sections/transcription.ts";
import { TRANSCRIBERS } from "../../media/transcription/backends.ts";
import { checkModel } from "../../setup/validate.ts";
import { html } from "../html.ts";
import { definePage } from "../page.ts";
import type { KeyState } from "../transcription-deps.ts";
import { csrfField, formKey, pick, secretInput, select } from "./_fields.ts";
import { noticeOf, refusal } from "./_notice.ts";

const KEY_WORDS: Record<KeyState, string> = {
  set: "set",
  "chat key": "reuses the chat provider's key",
  "not set": "not set",
};

/**
 * The Transcription card (spec: self-knowledge.md, Channels): [fermix_core.transcription] backend, the one shared
 * model (snapped to the backend's default on a switch; hidden for xAI, which takes none) and one key field stored
 * under the selected backend's slot. The daemon reads the section before each voice note: no restart.
 */
export const voicePage = definePage({
  path: "/setup/voice",
  title: "Voice notes",
  async render(deps, ctx) {
    const view = await deps.transcription.view();
    const backend = view.backend ?? "openai";
    const defaults = TRANSCRIPTION_BACKENDS.map(
      (b) => `${TRANSCRIBERS[b].label}: ${TRANSCRIBERS[b].defaultModel ?? "no model"}`,
    );
    const model = TRANSCRIBERS[backend].defaultModel
      ? html`<p><label>Model <input name="model" value="${view.model ?? TRANSCRIBERS[backend].defaultModel}"></label>
<small>A backend switch resets it to that backend's default (${defaults.join(", ")}).</small></p>`
      : html`<p>${TRANSCRIBERS[backend].label} takes no model.</p>`;
    return html`${noticeOf(ctx)}<p>Voice notes and audio files on the chat channels become text before a turn.
${view.backend ? html`Backend in use: <strong>${TRANSCRIBERS[view.backend].label}</strong>.` : html`<span class="warn">Not configured: voice notes get a reply asking to set a backend up.</span>`}
Changes apply to the next voice note.</p>
<form method="post" action="/setup/voice">${csrfField(ctx.csrf)}
<p><label>Backend ${select(
      "backend",
      TRANSCRIPTION_BACKENDS.map((b) => ({ value: b, label: TRANSCRIBERS[b].label })),
      backend,
    )}</label></p>
${model}${secretInput("api_key", "API key for the selected backend", KEY_WORDS[view.keys[backend]])}
<ul>${TRANSCRIPTION_BACKENDS.map((b) => html`<li>${TRANSCRIBERS[b].label} key: ${KEY_WORDS[view.keys[b]]}</li>`)}</ul>
<p><small>OpenAI and SpaceXAI reuse the chat provider's key unless one is set here; Deepgram needs its own.</small></p>
<p><button>Save</button></p></form>`;
  },
  async submit(form, deps) {
    const backend = pick(form, "backend", TRANSCRIPTION_BACKENDS);
    if (!backend.ok) return backend;
    const rawModel = (form.get("model") ?? "").trim();
    const model = rawModel && TRANSCRIBERS[backend.value].defaultModel ? checkModel(rawModel) : undefined;
    if (model && !model.ok) return { ok: false, error: `model: ${model.error}` };
    const key = formKey(form, "api_key", "API key");
    if (!key.ok) return { ok: false, error: key.error };
    try {
      if (backend.value === "deepgram" && !key.value && (await deps.transcription.view()).keys.deepgram !== "set") {
        return { ok: false, error: "API key: Deepgram needs its own key (deepgram_api_key); paste one" };
      }
      const notice = await deps.transcription.save({ backend: backend.value, model: model?.value, apiKey: key.value });
      return { ok: true, notice };
    } catch (err) {
      return refusal(err, [key.raw, key.raw.trim()]);
    }
  },
});
