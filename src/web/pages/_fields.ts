import { checkApiKey } from "../../setup/validate.ts";
import { type Html, html } from "../html.ts";

/** The hidden form token every form carries. */
export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

/** A picklist as a select, the current value selected. */
export function select(name: string, options: ReadonlyArray<{ value: string; label: string }>, current?: string): Html {
  return html`<select name="${name}">${options.map(
    (o) => html`<option value="${o.value}"${o.value === current ? html` selected` : ""}>${o.label}</option>`,
  )}</select>`;
}

/** A secret's input: never pre-filled; what config.toml holds shows as a word, and blank keeps it. */
export function secretInput(name: string, label: string, state: string): Html {
  return html`<p><label>${label} <input type="password" name="${name}" value="" autocomplete="off"></label>
<span class="${state === "set" ? "ok" : ""}" data-key-state="${name}">${state}</span> <small>(leave empty to keep it)</small></p>`;
}

/** The form's key: absent when blank (keep the stored one), else checked like setup checks a pasted key. */
export function formKey(form: URLSearchParams, name: string, field: string) {
  const raw = form.get(name) ?? "";
  if (!raw.trim()) return { ok: true as const, value: undefined, raw };
  const key = checkApiKey(raw);
  return key.ok
    ? { ok: true as const, value: key.value, raw }
    : { ok: false as const, error: `${field}: ${key.error}`, raw };
}

/** A picklist answer, or the error naming the field and its choices. */
export function pick<T extends string>(form: URLSearchParams, name: string, choices: readonly T[]) {
  const value = form.get(name) ?? "";
  return (choices as readonly string[]).includes(value)
    ? { ok: true as const, value: value as T }
    : { ok: false as const, error: `${name}: "${value}" is not one of ${choices.join(", ")}` };
}
