import type { ToolSpec } from "../../providers/types.ts";
import type { AnyTool } from "../tool.ts";
import { toolSpec } from "../tool-spec.ts";
import { type Bm25Index, createBm25Index } from "./bm25.ts";

// Deferred tools are the same objects turn after turn, while the split that lists them is rebuilt per turn.
const texts = new WeakMap<AnyTool, string>();
const indexes = new WeakMap<readonly AnyTool[], Bm25Index>();

/** A tool's schema exactly as the provider would get it inline (the registry's spec shape). */
export function specOf(tool: AnyTool): ToolSpec {
  // Cached per tool object, process-wide (tool-spec.ts), like the texts below.
  return toolSpec(tool);
}

/**
 * What tool_search matches against: the name's words and the description, each twice, then every parameter's
 * name and description once. Repetition is a cheap field weight: the name and the one-line summary say what a
 * tool does, while parameter text (enum values like "open, closed or all") mostly says how, and would
 * otherwise let a long argument list outvote a tool whose summary matches the request.
 */
export function searchText(tool: AnyTool): string {
  let text = texts.get(tool);
  if (text === undefined) {
    const words = splitWords(tool.name);
    const parts = [words, words, tool.description, tool.description];
    collectParameters(specOf(tool).parameters, parts, 0);
    text = parts.join("\n");
    texts.set(tool, text);
  }
  return text;
}

// Each turn's split makes a new list holding, almost always, the very same tools as the last one.
let last: { tools: readonly AnyTool[]; index: Bm25Index } | undefined;

/** One index per deferred list, built lazily on the first search and reused while the tools stay the same. */
export function indexOf(deferred: readonly AnyTool[]): Bm25Index {
  let index = indexes.get(deferred);
  if (index) return index;
  if (last && sameTools(last.tools, deferred)) index = last.index;
  else index = createBm25Index(deferred.map((t) => ({ id: t.name, text: searchText(t) })));
  indexes.set(deferred, index);
  last = { tools: deferred, index };
  return index;
}

/** The very same tool objects in the same order. */
export function sameTools(a: readonly AnyTool[], b: readonly AnyTool[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

// MCP tools often name parameters in camelCase ("channelId"); the tokenizer only splits on non-alphanumerics.
function splitWords(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ");
}

// Nested objects and arrays of objects carry meaningful names too, but a few levels are plenty.
function collectParameters(schema: unknown, parts: string[], depth: number): void {
  if (depth > 3 || !schema || typeof schema !== "object") return;
  const node = schema as { properties?: Record<string, unknown>; items?: unknown; description?: unknown };
  if (node.properties && typeof node.properties === "object") {
    for (const [name, child] of Object.entries(node.properties)) {
      parts.push(splitWords(name));
      const description = (child as { description?: unknown } | null)?.description;
      if (typeof description === "string") parts.push(description);
      collectParameters(child, parts, depth + 1);
    }
  }
  if (node.items) collectParameters(node.items, parts, depth + 1);
}
