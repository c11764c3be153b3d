import { defineError } from "../../error.ts";
import type { ManifestTool } from "../manifest/schema.ts";
import { isRecord } from "../manifest/templates.ts";

/** The model passed arguments the tool's schema does not allow; the message lists every problem at once. */
export const PluginArgsInvalid = defineError<{ tool: string; problems: string[] }>("plugin_args_invalid");

type Parameters = NonNullable<ManifestTool["parameters"]>;

/**
 * Checks arguments against the top level of the tool's JSON Schema (type, enum, required), fills defaults and
 * drops anything undeclared. Only the top level is fermix's business: nested shapes are the API's to judge.
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
