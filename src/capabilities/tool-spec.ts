import type * as v from "valibot";
import type { ToolSpec } from "../providers/types.ts";
import { nodeModule } from "../runtime/host.ts";
import { withoutLazy } from "../valibot-lazy.ts";
import { prerenderedSpec } from "./prerendered-specs.ts";
import type { AnyTool } from "./tool.ts";
import { advertisedForm } from "./wire-schema.ts";

// Keyed by the tool object, process-wide: a spec depends on nothing else, and plugin tools are rebuilt under the
// same names when a plugin changes (a new object, so a new spec). Every registry, tool_help and tool_describe share it.
const specs = new WeakMap<AnyTool, ToolSpec>();
const sizes = new WeakMap<AnyTool, number>();

/** A tool as the provider wire gets it: the built-ins' schemas as build.ts pre-rendered them, others converted. */
export function toolSpec(tool: AnyTool): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) {
    // Plugin and MCP tools declare their JSON Schema; their valibot parameters only say "an object".
    const parameters = tool.jsonSchema
      ? withoutDialect(tool.jsonSchema)
      : (prerenderedSpec(tool)?.parameters ?? convertParameters(tool.parameters));
    spec = { name: tool.name, description: tool.description, parameters };
    specs.set(tool, spec);
  }
  return spec;
}

/** The bytes `toolSpec(tool)` adds to a request, measured once per tool: tool-schema deferral weighs every turn. */
export function toolSpecSize(tool: AnyTool): number {
  let size = sizes.get(tool);
  if (size === undefined) {
    const bytes = tool.jsonSchema ? undefined : prerenderedSpec(tool)?.bytes;
    // A pre-rendered schema's length is known: only the name and description are serialised, with a one-character
    // stand-in for the schema (the same text as the whole spec's, with `0` where the schema goes).
    size =
      bytes === undefined
        ? JSON.stringify(toolSpec(tool)).length
        : JSON.stringify({ name: tool.name, description: tool.description, parameters: 0 }).length - 1 + bytes;
    sizes.set(tool, size);
  }
  return size;
}

/** valibot → the JSON Schema a provider gets, with the wire forms of wire-schema.ts in place of what they stand for. */
export function convertParameters(schema: v.GenericSchema): Record<string, unknown> {
  return withoutDialect(
    // A tool's parameters are built on first use (lazySchema): the wire gets the schema, never a $ref to it.
    jsonSchemaConverter()(withoutLazy(schema), {
      errorMode: "ignore",
      overrideSchema: ({ valibotSchema }) => advertisedForm(valibotSchema as v.GenericSchema),
    }) as Record<string, unknown>,
  );
}

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _, ...parameters } = schema;
  return parameters;
}

type Converter = typeof import("@valibot/to-json-schema").toJsonSchema;

/**
 * Loaded on the first conversion only (a channel's react variant, a harness or command-profile tool, a stale
 * pre-render when running from source): the built-ins' pre-rendered schemas leave a plain ask without it.
 * Synchronous, because a turn's shape is: Bun's `require` (which the bundler inlines, evaluated on first call),
 * or Node's under Deno, where ES modules have none.
 */
function jsonSchemaConverter(): Converter {
  const mod: { toJsonSchema: Converter } =
    typeof require === "function"
      ? require("@valibot/to-json-schema")
      : nodeModule<typeof import("node:module")>("node:module").createRequire(import.meta.url)(
          "@valibot/to-json-schema",
        );
  return mod.toJsonSchema;
}
