/**
 * The built-in tools are declared at start-up and carry out their work only when called (issue 31: the daemon's
 * boot RSS and the one-shot ask's import): a plain in-process ask that calls no tool evaluates every tool's
 * declaration (the registry, the catalog and the wire schemas read them) but none of what the tools do — the web
 * search backends, the browser's actions and page snapshot, computer use's pictures, generate_image's run, the
 * differ, the file walkers, the skill writer, the job operations and the schedule parser (with cron-schedule). Seen from source with the preload that lists evaluated modules
 * (test/fixture/loaded-modules.ts, as in ask-lazy.test.ts).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const ROOT = join(import.meta.dir, "../..");
const KEY = "sk-test-openai-lazy-tools-0123456789";
const defer = cleanupAfterEach();

/** What the tools do, under src/capabilities/builtins/ unless a path says otherwise. */
const TOOL_WORK = [
  "brave.ts",
  "exa.ts",
  "tavily.ts",
  "firecrawl.ts",
  "duckduckgo.ts",
  "_search-http.ts",
  "browser-run.ts",
  "src/browser/snapshot.ts",
  "computer-use-run.ts",
  "src/computer-use/png.ts",
  "src/computer-use/scale.ts",
  "generate-image-run.ts",
  "line-diff.ts",
  "_walk.ts",
  "src/runtime/glob.ts",
  "src/skills/write.ts",
  "src/jobs/job-operations.ts",
  "src/jobs/schedule.ts",
].map((p) => (p.startsWith("src/") ? p : `src/capabilities/builtins/${p}`));

test("an in-process ask that calls no tool loads the tools' declarations, not what they do", async () => {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  fake.setDefault({ kind: "text", text: "pong" });
  const log = join(h.userHome, "loaded.txt");
  const entry = [
    process.execPath,
    "--preload",
    join(ROOT, "test/fixture/loaded-modules.ts"),
    join(ROOT, "src/main.ts"),
  ];
  const r = await runCommand([...entry, "ask", "--no-daemon", "ping"], {
    cwd: ROOT,
    env: {
      PATH: "/usr/bin:/bin",
      FERMIX_HOME: h.home,
      HOME: h.userHome,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: fake.baseUrl,
      LOADED_MODULES_LOG: log,
    },
  });
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "pong\n" });
  const lines = readFileSync(log, "utf8").split("\n");
  const loaded = new Set(lines.filter((l) => l.startsWith(`${ROOT}/src/`)).map((l) => l.slice(ROOT.length + 1)));
  expect(TOOL_WORK.filter((p) => loaded.has(p))).toEqual([]);
  expect(lines.filter((l) => l.includes("/node_modules/cron-schedule/"))).toEqual([]);
  // The probe sees the declarations: the tool list and the tools whose work stays behind. (computer_use's is made
  // by its part, which loads only when computer use is on.)
  for (const declared of ["registry.ts", "web-tools.ts", "browser.ts", "generate-image.ts"]) {
    expect(loaded).toContain(`src/capabilities/builtins/${declared}`);
  }
});
