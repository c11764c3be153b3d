import { isCompiledBinary } from "../runtime/binary.ts";
import { sha256Hex } from "../runtime/hash.ts";
import { withoutLazy } from "../valibot-lazy.ts";
import PRERENDERED from "./prerendered-specs.json" with { type: "json" };
import type { AnyTool } from "./tool.ts";
import { advertisedForm } from "./wire-schema.ts";

/*
 * The built-in tools' wire schemas, converted from valibot by build.ts (src/capabilities/prerender-step.ts) rather
 * than on every process's first turn: the conversion was the largest single cost of a one-shot ask's request shape,
 * and it loaded @valibot/to-json-schema (issue 31). The file is committed so that running from source takes the same
 * path as the binary; a test fails when it is stale, and build.ts rewrites it before it compiles.
 */

/**
 * Per tool name: a fingerprint of the valibot parameters it was rendered from, the JSON Schema it gives, and that
 * schema's length as JSON (what tool-schema deferral weighs, without serialising it).
 */
export type PrerenderedSpecs = Record<string, PrerenderedSpec>;
export type PrerenderedSpec = { fingerprint: string; parameters: Record<string, unknown>; bytes: number };

const SPECS = PRERENDERED as PrerenderedSpecs;
// Keyed by the very tool objects the forms were rendered from, never by name alone: a channel's react variant or a
// plugin tool named like a built-in is another object, and is converted.
const byTool = new WeakMap<AnyTool, PrerenderedSpec>();
const lists: (readonly AnyTool[])[] = [];

/**
 * Declares `tools` (a list of built-ins, where it is defined) as the objects whose schemas build.ts pre-renders.
 * A registration rather than an import of every list from here: the tool modules import the registry, and the
 * registry reads this.
 */
export function prerendered<T extends readonly AnyTool[]>(tools: T): T {
  lists.push(tools);
  for (const tool of tools) {
    const entry = Object.hasOwn(SPECS, tool.name) ? SPECS[tool.name] : undefined;
    if (entry) byTool.set(tool, entry);
  }
  return tools;
}

/** Every tool declared with `prerendered`, by name: what the committed file must cover. */
export function prerenderedTools(): AnyTool[] {
  return lists.flat().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// The binary embeds the file build.ts rendered from the same sources just before compiling. From source, a tool may
// have been edited since the file was generated: its form is used only while its fingerprint still matches.
const CHECKED = !isCompiledBinary();

/** `tool`'s pre-rendered spec, when it is one of the built-ins they were rendered from and is unchanged. */
export function prerenderedSpec(tool: AnyTool): PrerenderedSpec | undefined {
  const entry = byTool.get(tool);
  if (!entry || (CHECKED && entry.fingerprint !== schemaFingerprint(tool.parameters))) return undefined;
  return entry;
}

/**
 * A digest of what the JSON Schema conversion reads of a valibot schema: every node's kind, type, entries, pipe
 * actions and their requirements and messages, and the wire forms registered for nodes (wire-schema.ts). Functions
 * count only as present: their source text changes when the binary is minified.
 */
export function schemaFingerprint(schema: unknown): string {
  const text = JSON.stringify(schema, (key, value) => {
    if (key.startsWith("~")) return undefined;
    // Parameters built on first use (lazySchema) are fingerprinted as the schema they build.
    if (value && typeof value === "object" && value.type === "lazy") return withoutLazy(value);
    if (typeof value === "function") return "ƒ";
    if (value instanceof RegExp) return String(value);
    const form = value && typeof value === "object" ? advertisedForm(value) : undefined;
    return form ? { advertised: form } : value;
  });
  return sha256Hex(text).slice(0, 16);
}
