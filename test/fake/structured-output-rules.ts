/**
 * The structured-output checks the real APIs run before sampling (`ask --schema`), in their own words:
 * - Responses `text.format` and Chat Completions `response_format` of type json_schema need a name matching
 *   `^[a-zA-Z0-9_-]+$` (Responses also the schema); the root must be an object; strict mode further needs
 *   every object closed (`additionalProperties: false`) with all its properties required.
 * - Anthropic `output_config.format` needs type json_schema, a schema whose every object is closed, and a
 *   model that has structured output; a forced `tool_choice` must name an offered tool and cannot be
 *   combined with extended thinking.
 */
import { isObject } from "./wire-kit.ts";

export type FormatProblem = { message: string; param: string; code: string };

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Responses: the `text` parameter. */
export function responsesFormatProblem(text: unknown): FormatProblem | null {
  if (text === undefined || !isObject(text) || text.format === undefined) return null;
  return formatProblem(text.format, "text.format", { schemaRequired: true });
}

/** Chat Completions: `response_format`. Mistral also requires the schema; OpenAI and OpenRouter do not. */
export function chatFormatProblem(format: unknown, opts: { schemaRequired: boolean }): FormatProblem | null {
  if (format === undefined) return null;
  if (!isObject(format)) return invalid("Invalid type for 'response_format': expected an object.", "response_format");
  if (format.type !== "json_schema") return formatProblem(format, "response_format", opts);
  if (!isObject(format.json_schema)) return missing("response_format.json_schema");
  return formatProblem({ type: "json_schema", ...format.json_schema }, "response_format.json_schema", opts);
}

function formatProblem(format: unknown, at: string, opts: { schemaRequired: boolean }): FormatProblem | null {
  if (!isObject(format)) return invalid(`Invalid type for '${at}': expected an object.`, at);
  if (format.type === "text" || format.type === "json_object") return null;
  if (format.type !== "json_schema") {
    return invalid(
      `Invalid value: '${format.type}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
      `${at}.type`,
      "invalid_value",
    );
  }
  if (typeof format.name !== "string") return missing(`${at}.name`);
  if (!NAME.test(format.name)) {
    return invalid(
      `Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      `${at}.name`,
      "invalid_value",
    );
  }
  if (format.schema === undefined) return opts.schemaRequired ? missing(`${at}.schema`) : null;
  const schema = format.schema;
  const bad = (why: string) =>
    invalid(`Invalid schema for response_format '${format.name}': ${why}`, `${at}.schema`, "invalid_json_schema");
  if (!isObject(schema) || schema.type !== "object") {
    return bad(
      `schema must be a JSON Schema of 'type: "object"', got 'type: "${isObject(schema) ? schema.type : schema}"'.`,
    );
  }
  if (format.strict !== true) return null;
  const strictness = strictProblem(schema, "()");
  return strictness ? bad(strictness) : null;
}

/** OpenAI's strict-mode rules, the first breach worded as the API words it. */
function strictProblem(schema: Record<string, any>, context: string): string | null {
  if (schema.type === "object" || schema.properties !== undefined) {
    if (schema.additionalProperties !== false) {
      return `In context=${context}, 'additionalProperties' is required to be supplied and to be false.`;
    }
    const keys = Object.keys(schema.properties ?? {});
    const required: unknown[] = Array.isArray(schema.required) ? schema.required : [];
    const absent = keys.find((k) => !required.includes(k));
    if (absent !== undefined) {
      return `In context=${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${absent}'.`;
    }
    for (const [key, sub] of Object.entries(schema.properties ?? {})) {
      const inner = isObject(sub) ? strictProblem(sub, `('properties', '${key}')`) : null;
      if (inner) return inner;
    }
  }
  if (isObject(schema.items)) return strictProblem(schema.items, `('items',)`);
  for (const key of ["anyOf", "allOf"]) {
    for (const sub of Array.isArray(schema[key]) ? schema[key] : []) {
      const inner = isObject(sub) ? strictProblem(sub, `('${key}',)`) : null;
      if (inner) return inner;
    }
  }
  return null;
}

const invalid = (message: string, param: string, code = "invalid_type"): FormatProblem => ({ message, param, code });
const missing = (param: string): FormatProblem => ({
  message: `Missing required parameter: '${param}'.`,
  param,
  code: "missing_required_parameter",
});

/** Claude models released before structured output (Opus 4.1 and the 4.5 family have it). */
const WITHOUT_OUTPUT_FORMAT = /^claude-3|^claude-(opus|sonnet)-4(-0|-2025|$)/;

/** Anthropic: `output_config.format`, and a forced `tool_choice`. The message, or null when accepted. */
export function anthropicFormatProblem(body: Record<string, any>): string | null {
  const format = body.output_config?.format;
  if (format !== undefined && format !== null) {
    if (!isObject(format)) return "output_config.format: Input should be a valid dictionary";
    if (format.type !== "json_schema") return "output_config.format.type: Input should be 'json_schema'";
    if (!isObject(format.schema)) return "output_config.format.schema: Field required";
    if (WITHOUT_OUTPUT_FORMAT.test(body.model)) {
      return `'${body.model}' does not support output_config.format. See the structured outputs documentation for supported models.`;
    }
    const open = openObject(format.schema, "output_config.format.schema");
    if (open) return `${open}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  }
  const choice = body.tool_choice;
  if (isObject(choice) && choice.type === "tool") {
    const names = (Array.isArray(body.tools) ? body.tools : []).map((t: any) => t?.name);
    if (!names.includes(choice.name)) return `tool_choice: Tool '${choice.name}' not found in tools`;
    if (body.thinking?.type === "enabled" || body.thinking?.type === "adaptive") {
      return "Thinking may not be enabled when tool_choice forces tool use.";
    }
  }
  return null;
}

/** The path of the first object schema left open, or null. */
function openObject(schema: Record<string, any>, at: string): string | null {
  if ((schema.type === "object" || schema.properties !== undefined) && schema.additionalProperties !== false) return at;
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    const inner = isObject(sub) ? openObject(sub, `${at}.properties.${key}`) : null;
    if (inner) return inner;
  }
  if (isObject(schema.items)) return openObject(schema.items, `${at}.items`);
  for (const key of ["anyOf", "allOf"]) {
    const list: unknown[] = Array.isArray(schema[key]) ? schema[key] : [];
    for (let i = 0; i < list.length; i++) {
      const sub = list[i];
      const inner = isObject(sub) ? openObject(sub, `${at}.${key}.${i}`) : null;
      if (inner) return inner;
    }
  }
  return null;
}
