import { UsageError } from "../cli/exit.ts";
import { findProvider, PROVIDER_IDS, type ProviderDescriptor } from "../providers/descriptors.ts";

/**
 * The checks every setup answer passes, whether it came as a flag or was typed at a prompt. Each returns
 * the value to store or a sentence saying what is wrong; `orUsage` turns that sentence into the usage error
 * (exit 2) that names the flag.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

export const DEFAULT_TIMEZONE = "America/New_York";
export const DEFAULT_AGENT_NAME = "fermix";
const MAX_NAME = 64;
/** The web page's limit for the communication style. */
const MAX_STYLE = 500;

export function checkProvider(answer: string): Checked<ProviderDescriptor> {
  const id = answer.trim().toLowerCase();
  const byNumber = /^\d+$/.test(id) ? PROVIDER_IDS[Number(id) - 1] : undefined;
  const found = findProvider(byNumber ?? id);
  if (found) return { ok: true, value: found };
  return { ok: false, error: `unknown provider "${answer.trim()}" (known: ${PROVIDER_IDS.join(", ")})` };
}

/** An IANA zone as Intl knows it, in its canonical spelling (america/new_york → America/New_York). */
export function checkTimezone(answer: string): Checked<string> {
  const zone = answer.trim();
  // Intl also takes UTC offsets ("+05:00"); they are not zones and do not follow daylight saving time.
  if (/^[A-Za-z]/.test(zone)) {
    try {
      return { ok: true, value: new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone };
    } catch {}
  }
  return {
    ok: false,
    error: `"${zone}" is not an IANA time zone (such as America/New_York, Europe/Paris or UTC)`,
  };
}

/** A name shown in prompts and IDENTITY.md: one line of text. */
export function checkName(answer: string, what: string): Checked<string> {
  const name = answer.trim();
  if (!name) return { ok: false, error: `${what} is empty` };
  if (/\p{Cc}/u.test(name)) return { ok: false, error: `${what} must be one line of plain text` };
  if ([...name].length > MAX_NAME) return { ok: false, error: `${what} is longer than ${MAX_NAME} characters` };
  return { ok: true, value: name };
}

/** [fermix_core.personalization] communication_style: free text for the prompt, as long as the web form takes. */
export function checkStyle(answer: string): Checked<string> {
  const style = answer.trim();
  if (!style) return { ok: false, error: "the communication style is empty" };
  // Lines and tabs are fine (the web form is a text area); other control characters are not text.
  if (/\p{Cc}/u.test(style.replace(/[\n\t]/g, ""))) {
    return { ok: false, error: "the communication style must be plain text" };
  }
  if ([...style].length > MAX_STYLE) {
    return { ok: false, error: `the communication style is longer than ${MAX_STYLE} characters` };
  }
  return { ok: true, value: style };
}

/** A model id as its provider spells it (`anthropic/claude-sonnet-4.6`, `qwen3:8b`): one word. */
export function checkModel(answer: string): Checked<string> {
  const model = answer.trim();
  if (!model) return { ok: false, error: "the model is empty" };
  if (/\s/.test(model) || model.length > 200) return { ok: false, error: `"${model}" is not a model id` };
  return { ok: true, value: model };
}

export function checkBaseUrl(answer: string): Checked<string> {
  const url = answer.trim().replace(/\/+$/, "");
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return { ok: true, value: url };
  } catch {}
  return { ok: false, error: `"${answer.trim()}" is not a URL starting with http:// or https://` };
}

export function checkEnvName(answer: string): Checked<string> {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(answer)) return { ok: true, value: answer };
  return { ok: false, error: `"${answer}" is not an environment variable name` };
}

/** A key as pasted: surrounding whitespace dropped, nothing inside it. */
export function checkApiKey(answer: string): Checked<string> {
  const key = answer.trim();
  if (!key) return { ok: false, error: "the API key is empty" };
  if (/\s/.test(key)) return { ok: false, error: "the API key contains spaces or more than one line" };
  return { ok: true, value: key };
}

export function orUsage<T>(checked: Checked<T>, flag: string): T {
  if (checked.ok) return checked.value;
  throw UsageError(`setup: ${flag}: ${checked.error}`);
}
