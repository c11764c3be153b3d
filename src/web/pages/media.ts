import { IMAGE_BACKENDS } from "../../config/sections/tools.ts";
import { checkModel } from "../../setup/validate.ts";
import { html } from "../html.ts";
import { IMAGE_DEFAULT_MODELS, type ImageBackend } from "../media-deps.ts";
import { definePage } from "../page.ts";
import { csrfField, formKey, pick, secretInput, select } from "./_fields.ts";
import { noticeOf, refusal } from "./_notice.ts";

const LABELS: Record<ImageBackend, string> = {
  openai: "OpenAI",
  xai: "SpaceXAI",
  google: "Google",
  openai_codex: "ChatGPT plan (Codex)",
};
const KEY_HOME: Record<Exclude<ImageBackend, "openai_codex">, string> = {
  openai: "the OpenAI chat key, [fermix_core.providers.openai] api_key",
  xai: "the SpaceXAI chat key, [fermix_core.providers.xai] api_key",
  google: "[fermix_core.tools.generate_image] google_api_key",
};
/** The ChatGPT plan has no key: it is the Codex chat provider's sign-in. */
const CODEX_SIGN_IN = "run fermix auth login --provider codex";
const credential = (b: ImageBackend, view: { keys: Record<ImageBackend, boolean> }) =>
  b === "openai_codex"
    ? `${LABELS[b]}: ${view.keys[b] ? "signed in" : `not signed in (${CODEX_SIGN_IN})`}`
    : `${LABELS[b]} key: ${view.keys[b] ? "set" : "not set"}`;

/**
 * The Media tab (spec: self-knowledge.md, Providers): the image backend and model of generate_image, and the
 * selected backend's key inline — for OpenAI and SpaceXAI the very key their chat uses, set here without making
 * that provider primary.
 */
export const mediaPage = definePage({
  path: "/setup/media",
  title: "Media",
  async render(deps, ctx) {
    const view = await deps.media.view();
    const backend = view.backend ?? "openai";
    return html`${noticeOf(ctx)}<p>The backend and model the image tool (generate_image) uses.
${view.backend ? html`In use: <strong>${LABELS[view.backend]}</strong>.` : html`<span class="warn">No image backend is set.</span>`}</p>
<form method="post" action="/setup/media">${csrfField(ctx.csrf)}
<p><label>Image backend ${select(
      "backend",
      IMAGE_BACKENDS.map((b) => ({ value: b, label: LABELS[b] })),
      backend,
    )}</label></p>
<p><label>Model <input name="model" value="${view.model ?? IMAGE_DEFAULT_MODELS[backend]}"></label>
<small>A backend switch resets it to that backend's default (${IMAGE_BACKENDS.map((b) => `${LABELS[b]}: ${IMAGE_DEFAULT_MODELS[b]}`).join(", ")}).</small></p>
${
  backend === "openai_codex"
    ? html`<p>The ChatGPT plan takes no key: it uses the Codex sign-in (${credential(backend, view)}).</p>`
    : html`${secretInput("api_key", `${LABELS[backend]} API key`, view.keys[backend] ? "set" : "not set")}
<p><small>The key is stored as ${KEY_HOME[backend]}; saving it here does not change the primary provider.</small></p>`
}
<ul>${IMAGE_BACKENDS.map((b) => html`<li>${credential(b, view)}</li>`)}</ul>
<p><button>Save</button></p></form>`;
  },
  async submit(form, deps) {
    const backend = pick(form, "backend", IMAGE_BACKENDS);
    if (!backend.ok) return backend;
    const rawModel = (form.get("model") ?? "").trim();
    const model = rawModel ? checkModel(rawModel) : undefined;
    if (model && !model.ok) return { ok: false, error: `model: ${model.error}` };
    const key = formKey(form, "api_key", "API key");
    if (!key.ok) return { ok: false, error: key.error };
    try {
      return {
        ok: true,
        notice: await deps.media.save({ backend: backend.value, model: model?.value, apiKey: key.value }),
      };
    } catch (err) {
      return refusal(err, [key.raw, key.raw.trim()]);
    }
  },
});
