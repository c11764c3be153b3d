import type { JsonSchema } from "./types.ts";

/**
 * Grok models whose API answers a reasoning effort with HTTP 400 ("Model does not support parameter
 * reasoningEffort"): they reason at a fixed depth, or pick reasoning by model variant (…-reasoning /
 * …-non-reasoning). The spec says only "some Grok models reject effort and get it omitted" without naming
 * them; this list is xAI's documented behaviour: the grok-4 family (grok-4, its dated and -latest aliases, the
 * grok-4-fast and grok-4-1-fast variants, grok-4.20 and its dated variants) and grok-code-fast. grok-3-mini
 * accepts `reasoning.effort`, and so does grok-4.3 (none|low|medium|high), so neither may match here.
 */
const EFFORT_REJECTING_GROK: readonly RegExp[] = [
  /^grok-4(-\d{4}|-latest)?$/i,
  /^grok-4-(1-)?fast(-|$)/i,
  /^grok-4\.20(-|$)/i,
  /^grok-code-fast(-|$)/i,
];

/** Whether xAI refuses a reasoning effort for this model, so the request must carry none. */
export function grokRejectsEffort(model: string): boolean {
  return EFFORT_REJECTING_GROK.some((m) => m.test(model));
}

/**
 * A tool schema as xAI accepts it: xAI refuses string enum values that contain "/" (the spec: "slash-containing
 * enum values are stripped from tool schemas"), so they are dropped at every depth. An enum left empty loses the
 * keyword rather than stay `[]`: an empty enum admits no value at all, while a bare `type: "string"` still lets
 * the model send one and the tool's own argument validation answer it with the allowed values. The input is
 * never changed (tool specs are shared by every route of a turn).
 */
export function withoutSlashEnums(schema: JsonSchema): JsonSchema {
  return strip(schema) as JsonSchema;
}

function strip(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    // Only the keyword: a property named "enum" under `properties` holds a schema object, not an array.
    if (key === "enum" && Array.isArray(value)) {
      const kept = value.filter((v) => !(typeof v === "string" && v.includes("/")));
      if (kept.length) out.enum = kept;
      continue;
    }
    out[key] = strip(value);
  }
  return out;
}
