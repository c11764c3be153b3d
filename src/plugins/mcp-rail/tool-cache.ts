import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writePrivateFileAtomically } from "../../fs/write-private-file.ts";
import type { McpTool } from "./mcp-tool.ts";

/** Which build of a plugin a cached list belongs to: another version or another folder is another list. */
export type CacheKey = { name: string; version: string; dir: string };

const CachedTool = v.object({
  name: v.pipe(v.string(), v.regex(/^[a-z0-9_]{1,64}$/)),
  mcpName: v.string(),
  description: v.string(),
  inputSchema: v.record(v.string(), v.unknown()),
});

const CacheFile = v.object({
  version: v.literal(1),
  plugin: v.object({ name: v.string(), version: v.string(), dir: v.string() }),
  discovered_at: v.string(),
  tools: v.array(CachedTool),
});

export type ToolCache = {
  /** The tools the plugin's server last reported, if that was this very version in this very folder. */
  read(key: CacheKey): McpTool[] | undefined;
  write(key: CacheKey, tools: readonly McpTool[]): void;
};

/**
 * The last successful discovery of each MCP-rail plugin, one JSON file per plugin. A one-shot `fermix ask`
 * offers these tools without starting the server, and starts it only when the model calls one — so an ask
 * that uses no plugin tool costs what it would with no plugin enabled. A file that is unreadable, malformed or
 * for another version is simply not used: the server's own answer replaces it at the next discovery.
 */
export function createToolCache(dir: string, now: () => number = Date.now): ToolCache {
  const fileOf = (name: string) => join(dir, `${name}.json`);
  return {
    read(key) {
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(fileOf(key.name), "utf8"));
      } catch {
        return undefined;
      }
      const parsed = v.safeParse(CacheFile, raw);
      if (!parsed.success) return undefined;
      const { plugin, tools } = parsed.output;
      if (plugin.name !== key.name || plugin.version !== key.version || plugin.dir !== key.dir) return undefined;
      // A name outside the plugin's prefix would let a stale file shadow another plugin's or a built-in tool.
      if (!tools.every((t) => t.name.startsWith(`${key.name}_`))) return undefined;
      return tools;
    },
    write(key, tools) {
      const body = {
        version: 1,
        plugin: { name: key.name, version: key.version, dir: key.dir },
        discovered_at: new Date(now()).toISOString(),
        tools: tools.map((t) => ({
          name: t.name,
          mcpName: t.mcpName,
          description: t.description,
          inputSchema: t.inputSchema,
        })),
      };
      try {
        writePrivateFileAtomically(fileOf(key.name), `${JSON.stringify(body)}\n`);
      } catch {
        // A cache that cannot be written only costs the next one-shot ask the declared tools instead.
      }
    },
  };
}
