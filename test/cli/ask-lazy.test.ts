/**
 * The hot paths load only what they use: `fermix --version` and a plain `fermix ask` never evaluate the heavy
 * packages below; `ask --schema` is what loads the JSON Schema validator. Run from source under Bun with a
 * preload that lists the package modules each process evaluated (a compiled binary bundles every module, so
 * there "loaded" can only be seen this way).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/** Packages the ask and --version paths must not load. */
const MUST_NOT_LOAD = [
  "ajv",
  "ajv-formats",
  "@modelcontextprotocol/sdk",
  "playwright-core",
  "linkedom",
  "turndown",
  "x11",
];
const ROOT = join(import.meta.dir, "../..");
const KEY = "sk-test-openai-lazy-0123456789abcdef";
const defer = cleanupAfterEach();

async function loadedBy(args: string[]): Promise<{ code: number; packages: Set<string> }> {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  fake.setDefault({ kind: "text", text: '{"name":"Ada"}' });
  const log = join(h.userHome, "loaded.txt");
  const r = await runCommand(
    [process.execPath, "--preload", join(ROOT, "test/fixture/loaded-modules.ts"), join(ROOT, "src/main.ts"), ...args],
    {
      cwd: ROOT,
      env: {
        PATH: "/usr/bin:/bin",
        FERMIX_HOME: h.home,
        HOME: h.userHome,
        OPENAI_API_KEY: KEY,
        OPENAI_BASE_URL: fake.baseUrl,
        LOADED_MODULES_LOG: log,
      },
    },
  );
  const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
  // node_modules/<name>/… or node_modules/@scope/<name>/…
  const packages = new Set(lines.map((l) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(l)?.[1] ?? l));
  return { code: r.code, packages };
}

describe("lazy loading on the hot paths", () => {
  test("--version loads none of the heavy packages", async () => {
    const { code, packages } = await loadedBy(["--version"]);
    expect(code).toBe(0);
    expect(MUST_NOT_LOAD.filter((p) => packages.has(p))).toEqual([]);
  });

  test("a plain ask loads none of them, the validator included", async () => {
    const { code, packages } = await loadedBy(["ask", "--no-daemon", "hi"]);
    expect(code).toBe(0);
    expect(MUST_NOT_LOAD.filter((p) => packages.has(p))).toEqual([]);
  });

  test("ask --schema is what loads the validator (the probe sees a load when there is one)", async () => {
    const { code, packages } = await loadedBy(["ask", "--no-daemon", "--schema", "name", "hi"]);
    expect(code).toBe(0);
    expect(packages.has("ajv")).toBe(true);
  });
});
