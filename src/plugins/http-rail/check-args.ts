import { defineError } from "../../error.ts";
import type { ManifestTool } from "../manifest/schema.ts";
import { isRecord } from "../manifest/templates.ts";

/** The model passed arguments the tool's schema does not allow; the message lists every problem at once. */
export const PluginArgsInvalid = defineError<{ tool: string; problems: string[] }>("plugin_args_invalid");

type Parameters = NonNullable<ManifestTool["parameters"]>;

/**
 * Checks arguments against the top level of the tool's JSON Schema (type, enum, required, and the bounds:
 * minimum/maximum, lengths, pattern, item counts), fills defaults and drops anything undeclared. Only the top
 * level is fermix's business: nested shapes are the API's to judge. A bound the model can read in the schema
 * is cheaper to enforce here, with a sentence it can act on, than as an API's 422 or a silently capped page.
 */
export function checkArgs(tool: string, parameters: Parameters | undefined, args: Record<string, unknown>) {
  const properties = parameters?.properties ?? {};
  const required = new Set(parameters?.required ?? []);
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    let value = Object.hasOwn(args, name) ? args[name] : undefined;
    // Models often send null for "not given"; for an optional parameter that cannot be null, that is what it means.
    if (value === null && !required.has(name) && !typesOf(schema).includes("null")) value = undefined;
    if (value === undefined && schema.default !== undefined) value = structuredClone(schema.default);
    if (value === undefined) {
      if (required.has(name)) problems.push(`missing required argument "${name}"`);
      continue;
    }
    const types = typesOf(schema);
    if (types.length && !types.some((t) => hasType(value, t))) {
      problems.push(`argument "${name}" must be ${types.join(" or ")} (got ${describe(value)})`);
      continue;
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(option, value))) {
      const options = schema.enum.map((o) => JSON.stringify(o)).join(", ");
      problems.push(`argument "${name}" must be one of ${options} (got ${describe(value)})`);
      continue;
    }
    const outOfBounds = boundsProblem(schema, value);
    if (outOfBounds) {
      problems.push(`argument "${name}" ${outOfBounds} (got ${describe(value)})`);
      continue;
    }
    out[name] = value;
  }
  // A required name with no declared schema still has to be present; it is passed on unchecked.
  for (const name of required) {
    if (Object.hasOwn(properties, name)) continue;
    if (args[name] === undefined || args[name] === null) problems.push(`missing required argument "${name}"`);
    else out[name] = args[name];
  }
  if (problems.length) {
    throw PluginArgsInvalid(`${tool}: ${problems.join("; ")}`, { tool, problems });
  }
  return out;
}

/** The first bound `value` breaks, as the rest of a sentence ("must be at most 100"), or undefined. */
function boundsProblem(schema: Record<string, unknown>, value: unknown): string | undefined {
  const n = (key: string) => (typeof schema[key] === "number" ? (schema[key] as number) : undefined);
  if (typeof value === "number") {
    if (n("minimum") !== undefined && value < n("minimum")!) return `must be at least ${n("minimum")}`;
    if (n("maximum") !== undefined && value > n("maximum")!) return `must be at most ${n("maximum")}`;
    if (n("exclusiveMinimum") !== undefined && value <= n("exclusiveMinimum")!) {
      return `must be more than ${n("exclusiveMinimum")}`;
    }
    if (n("exclusiveMaximum") !== undefined && value >= n("exclusiveMaximum")!) {
      return `must be less than ${n("exclusiveMaximum")}`;
    }
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (n("minLength") !== undefined && length < n("minLength")!)
      return `must be at least ${n("minLength")} characters`;
    if (n("maxLength") !== undefined && length > n("maxLength")!) return `must be at most ${n("maxLength")} characters`;
    if (typeof schema.pattern === "string" && !matches(schema.pattern, value)) {
      return `must match the pattern ${schema.pattern}`;
    }
  }
  if (Array.isArray(value)) {
    if (n("minItems") !== undefined && value.length < n("minItems")!)
      return `must have at least ${n("minItems")} items`;
    if (n("maxItems") !== undefined && value.length > n("maxItems")!) return `must have at most ${n("maxItems")} items`;
  }
  return undefined;
}

/** JSON Schema patterns are ECMA-262 and unanchored; one that does not compile is the schema's problem. */
function matches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, "u").test(value);
  } catch {
    return true;
  }
}

function typesOf(schema: Record<string, unknown>): string[] {
  const t = schema.type;
  if (typeof t === "string") return [t];
  return Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : [];
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    case "null":
      return value === null;
    default:
      return true; // an unknown type word is the schema's problem, not the caller's
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function describe(value: unknown): string {
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const shown = JSON.stringify(value) ?? String(value);
  return `${kind} ${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown}`;
}
