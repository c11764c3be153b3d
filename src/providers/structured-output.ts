import type { JsonSchema } from "./types.ts";

/**
 * How each wire asks for a structured answer (`ask --schema`). The schema arrives whole and already checked by
 * the CLI; the answer is validated again there, so each wire only has to ask in its vendor's words.
 */

/** The format's name: Responses and Chat Completions require one (`^[a-zA-Z0-9_-]{1,64}$`). */
export const SCHEMA_NAME = "fermix_answer";

/**
 * OpenAI's strict mode guarantees the shape, but refuses a schema unless every object lists all its
 * properties as required and sets additionalProperties to false. Making a schema comply would change its
 * meaning (an optional field made required), so strict is asked only of a schema that already complies (the
 * concise form always does); any other is sent with strict false and checked locally all the same.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return true;
  const node = schema as Record<string, unknown>;
  if (node.type === "object" || node.properties !== undefined) {
    const keys = Object.keys((node.properties as Record<string, unknown> | undefined) ?? {});
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false || !keys.every((k) => required.includes(k))) return false;
  }
  return subschemas(node).every(isStrictCompatible);
}

/** The schemas nested in one schema node (never the values of enum, const or default, which are data). */
function subschemas(node: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_VALUED.has(key)) out.push(...(Array.isArray(value) ? value : [value]));
    else if (MAP_VALUED.has(key) && typeof value === "object" && value !== null) out.push(...Object.values(value));
  }
  return out;
}

const SCHEMA_VALUED = new Set(["items", "anyOf", "allOf", "oneOf", "not", "additionalProperties", "prefixItems"]);
const MAP_VALUED = new Set(["properties", "$defs", "definitions"]);

/** Responses (OpenAI, xAI, the Codex backend): `text.format`. */
export function responsesTextFormat(schema: JsonSchema): Record<string, unknown> {
  return { format: { type: "json_schema", name: SCHEMA_NAME, schema, strict: isStrictCompatible(schema) } };
}

/** Chat Completions (OpenRouter, Mistral, Ollama): `response_format`. */
export function chatResponseFormat(schema: JsonSchema): Record<string, unknown> {
  return { type: "json_schema", json_schema: { name: SCHEMA_NAME, schema, strict: isStrictCompatible(schema) } };
}

/**
 * Claude models with native structured output (`output_config.format`): Opus 4.1, the 4.5 family and later.
 * Older ones answer through a forced tool instead (see wires/_anthropic-schema.ts).
 */
export function anthropicHasOutputFormat(model: string): boolean {
  return /^claude-opus-4-1|^claude-(opus|sonnet|haiku)-4-[5-9]|^claude-[a-z]+-[5-9]/.test(model);
}

/** Keywords Anthropic's structured output takes as constraints; the rest are told to the model in `description`. */
const ANTHROPIC_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "allOf",
  "$ref",
  "$defs",
  "definitions",
  "description",
  "title",
  "default",
  "format",
  "pattern",
]);

/**
 * The schema as Anthropic's structured output accepts it: every object closed (`additionalProperties: false`,
 * which the API requires), and constraints it does not enforce (minimum, maxLength, …) moved into the
 * description, as the official SDK's transform does. The local validation still holds the answer to them.
 */
export function anthropicSchema(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  const told: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema") continue;
    // oneOf is not supported; anyOf accepts what oneOf would (and more), the local check tells them apart.
    if (key === "oneOf" && Array.isArray(value)) out.anyOf = value.map(anthropicSchema);
    else if (!ANTHROPIC_KEYWORDS.has(key)) told.push(`${key}: ${JSON.stringify(value)}`);
    else if (MAP_VALUED.has(key) && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, anthropicSchema(v)]));
    } else if (SCHEMA_VALUED.has(key))
      out[key] = Array.isArray(value) ? value.map(anthropicSchema) : anthropicSchema(value);
    else out[key] = value;
  }
  if (out.type === "object" || out.properties !== undefined) out.additionalProperties = false;
  if (told.length) out.description = [out.description, `{${told.join(", ")}}`].filter(Boolean).join("\n\n");
  return out;
}
