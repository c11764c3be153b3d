import { defineError } from "../error.ts";

/** A concise schema that cannot be read: the CLI maps this to a usage error (exit 2). */
export const ConciseSchemaInvalid = defineError("usage");

export type JsonSchema = Record<string, unknown>;

const TYPES: Record<string, string> = { str: "string", int: "integer", float: "number", bool: "boolean" };
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/**
 * Simon Willison's `llm` concise schema syntax: fields separated by commas (or by newlines, when there is
 * one: then a description may hold commas), each `name [type][: description]`, the type one of str (the
 * default), int, float, bool. The result is an object with every field required.
 *
 * Stricter than llm, which takes an unknown type as a string: a typo ("age integer") would otherwise
 * pass silently as a string field, so it is refused instead.
 *
 * @example conciseSchema("name, age int, bio: a short bio")
 *   // {type: "object", properties: {name: {type: "string"}, age: {type: "integer"},
 *   //  bio: {type: "string", description: "a short bio"}}, required: ["name", "age", "bio"], additionalProperties: false}
 */
export function conciseSchema(text: string): JsonSchema {
  const separator = text.includes("\n") ? "\n" : ",";
  const fields = text
    .split(separator)
    .map((f) => f.trim())
    .filter(Boolean);
  if (!fields.length) throw ConciseSchemaInvalid("the concise schema names no fields");
  const properties: Record<string, JsonSchema> = {};
  for (const field of fields) {
    const colon = field.indexOf(":");
    const head = (colon < 0 ? field : field.slice(0, colon)).trim().split(/\s+/);
    const description = colon < 0 ? "" : field.slice(colon + 1).trim();
    const [name = "", type = "str", ...rest] = head;
    if (!FIELD_NAME.test(name) || rest.length) {
      throw ConciseSchemaInvalid(
        `"${field}" is not a field: write "name [type][: description]", such as "age int: years since birth"`,
      );
    }
    const mapped = TYPES[type];
    if (!mapped)
      throw ConciseSchemaInvalid(`field "${name}" has the unknown type "${type}" (use str, int, float or bool)`);
    if (properties[name]) throw ConciseSchemaInvalid(`the field "${name}" is named twice`);
    properties[name] = description ? { type: mapped, description } : { type: mapped };
  }
  // additionalProperties: false and every field required make the schema acceptable to OpenAI's strict mode as is.
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

/** `--schema-multi`: several items of one schema, as llm wraps them (`{"items": [...]}`). */
export function multiSchema(item: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: { items: { type: "array", items: item } },
    required: ["items"],
    additionalProperties: false,
  };
}
