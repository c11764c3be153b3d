import { describe, expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { McpTool } from "../../../src/plugins/mcp-rail/supervisor.ts";
import { createToolCache } from "../../../src/plugins/mcp-rail/tool-cache.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempDir } from "./_fixture.ts";

const defer = cleanupAfterEach();

const key = { name: "fake", version: "1.0.0", dir: "/plugins/fake" };
const tools: McpTool[] = [
  {
    name: "fake_echo",
    mcpName: "echo",
    description: "Echo a message.",
    inputSchema: { type: "object", properties: { message: { type: "string" } } },
  },
  { name: "fake_get_page", mcpName: "get-page", description: "Read a page.", inputSchema: { type: "object" } },
];

async function cacheDir() {
  const root = await tempDir("fermix-tool-cache-");
  defer(root.remove);
  return join(root.path, "tool-cache");
}

describe("the tool cache", () => {
  test("gives back what was written, from a private file, for the same name, version and folder", async () => {
    const dir = await cacheDir();
    createToolCache(dir).write(key, tools);

    expect(createToolCache(dir).read(key)).toEqual(tools);
    expect(statSync(join(dir, "fake.json")).mode & 0o777).toBe(0o600);
  });

  test("a list written for another version or another folder is not used", async () => {
    const cache = createToolCache(await cacheDir());
    cache.write(key, tools);

    expect(cache.read({ ...key, version: "1.0.1" })).toBeUndefined();
    expect(cache.read({ ...key, dir: "/elsewhere/fake" })).toBeUndefined();
  });

  test("nothing written, or a corrupt file, reads as no list", async () => {
    const dir = await cacheDir();
    const cache = createToolCache(dir);
    expect(cache.read(key)).toBeUndefined();

    cache.write(key, tools);
    writeFileSync(join(dir, "fake.json"), '{"version": 1, "plugin": {');
    expect(cache.read(key)).toBeUndefined();
    writeFileSync(join(dir, "fake.json"), JSON.stringify({ version: 1, tools: "not a list" }));
    expect(cache.read(key)).toBeUndefined();
  });

  test("a list with a tool outside the plugin's prefix is not used, lest it shadow another's tool", async () => {
    const cache = createToolCache(await cacheDir());
    cache.write(key, [...tools, { ...tools[0]!, name: "file_read", mcpName: "file_read" }]);
    expect(cache.read(key)).toBeUndefined();
  });

  test("a cache that cannot be written is no error", async () => {
    const dir = await cacheDir();
    writeFileSync(dir, "a file where the cache folder should be");
    const cache = createToolCache(dir);
    expect(() => cache.write(key, tools)).not.toThrow();
    expect(cache.read(key)).toBeUndefined();
  });
});
