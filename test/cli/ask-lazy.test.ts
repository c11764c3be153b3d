/**
 * The hot paths load only what they use: `fermix --version` and a plain `fermix ask` never evaluate the heavy
 * packages below; `ask --schema` is what loads the JSON Schema validator. The client paths (issue 31) load less
 * still: `--version` and `ask --help` neither valibot nor the protocol, and an ask through a running daemon only
 * ask's part of the protocol and its socket client (valibot neither, when its words are plain) — no config parsing,
 * providers, tools, sandbox or in-process turn. Run from source under Bun with a preload that lists the modules each process evaluated (a compiled
 * binary bundles every module, so there "loaded" can only be seen this way; its lazy chunks follow the same
 * imports).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand, startFermixDaemon } from "../fixture/cli.ts";
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
  // The built-in tools' wire schemas are pre-rendered (src/capabilities/prerendered-specs.ts): the converter is for
  // the tools that are not (a channel's react variant, a plugin's valibot tool). The binary takes the same path,
  // minus the from-source check that the pre-rendered forms are current.
  "@valibot/to-json-schema",
];
/**
 * The project's modules that belong to the in-process turn and the daemon, never to a client that only sends:
 * config parsing, providers, the tool registry, the sandbox, the gateway, the whole protocol's schemas (ask's part
 * is protocol/ask-schemas.ts) and `--schema`'s validator. A path ending in "/" stands for the folder.
 */
const HEAVY_SOURCES = [
  "src/app.ts",
  "src/config/load.ts",
  "src/config/schema.ts",
  "src/providers/",
  "src/capabilities/",
  "src/sandbox/",
  "src/gateway/",
  "src/protocol/schemas.ts",
  "src/schema/",
];
/** What `--version` and `ask --help` load beyond that: argument declarations and help need none of these. */
const NOT_FOR_HELP = ["src/protocol/", "src/cli/ask-run.ts"];
const ROOT = join(import.meta.dir, "../..");
const KEY = "sk-test-openai-lazy-0123456789abcdef";
const defer = cleanupAfterEach();

type Loaded = { code: number; stdout: string; packages: Set<string>; sources: string[] };

/** A home with the fake provider configured through the environment, as the daemon and the CLI both read it. */
async function askEnv(): Promise<{ env: Record<string, string>; log: string }> {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  fake.setDefault({ kind: "text", text: '{"name":"Ada"}' });
  const env = {
    PATH: "/usr/bin:/bin",
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.baseUrl,
  };
  return { env, log: join(h.userHome, "loaded.txt") };
}

async function loadedBy(args: string[], given?: { env: Record<string, string>; log: string }): Promise<Loaded> {
  const { env, log } = given ?? (await askEnv());
  const r = await runCommand(
    [process.execPath, "--preload", join(ROOT, "test/fixture/loaded-modules.ts"), join(ROOT, "src/main.ts"), ...args],
    { cwd: ROOT, env: { ...env, LOADED_MODULES_LOG: log } },
  );
  const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
  // node_modules/<name>/… or node_modules/@scope/<name>/…
  const packages = new Set(lines.map((l) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(l)?.[1] ?? l));
  const sources = lines.filter((l) => l.startsWith(`${ROOT}/src/`)).map((l) => l.slice(ROOT.length + 1));
  return { code: r.code, stdout: r.stdout, packages, sources };
}

/** The loaded project modules that are, or sit in, one of `paths`. */
function among(sources: string[], paths: string[]): string[] {
  return sources.filter((s) => paths.some((p) => (p.endsWith("/") ? s.startsWith(p) : s === p)));
}

describe("lazy loading on the hot paths", () => {
  test("--version loads none of the heavy packages, nor valibot, nor the protocol", async () => {
    const { code, packages, sources } = await loadedBy(["--version"]);
    expect(code).toBe(0);
    expect(MUST_NOT_LOAD.filter((p) => packages.has(p))).toEqual([]);
    expect(packages.has("valibot")).toBe(false);
    expect(among(sources, [...HEAVY_SOURCES, ...NOT_FOR_HELP])).toEqual([]);
    // The probe sees the project's modules: the entry itself is among them, and nothing else of the project but
    // version.ts, which only a run from source reads (the binary has build.ts's define; src/main.ts says why), and
    // cli/ask-early.ts, cli/help-fast.ts, runtime/entry-probes.ts and runtime/unix-post.ts, which import nothing else
    // at run time and are the entry's alone, so in the binary they are part of the entry's chunk.
    expect(sources).toContain("src/main.ts");
    const entryChunk = [
      "src/main.ts",
      "src/version.ts",
      "src/cli/ask-early.ts",
      "src/cli/help-fast.ts",
      "src/runtime/entry-probes.ts",
      "src/runtime/unix-post.ts",
    ];
    expect(among(sources, ["src/"]).filter((s) => !entryChunk.includes(s))).toEqual([]);
  });

  test("ask --help prints the help the build rendered: not even ask's declaration loads", async () => {
    const { code, stdout, packages, sources } = await loadedBy(["ask", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("--schema");
    expect(packages.has("valibot")).toBe(false);
    expect(among(sources, [...HEAVY_SOURCES, ...NOT_FOR_HELP, "src/cli/ask.ts", "src/cli/usage.ts"])).toEqual([]);
    // Ask's help alone, not every command's.
    expect(sources).toContain("src/cli/help-table-ask.ts");
    expect(sources).not.toContain("src/cli/help-table.ts");
  });

  test("help the table cannot answer renders from the declaration alone: no valibot, no protocol, not ask's run", async () => {
    const { code, stdout, packages, sources } = await loadedBy(["ask", "--model", "m", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("--schema");
    expect(packages.has("valibot")).toBe(false);
    expect(among(sources, [...HEAVY_SOURCES, ...NOT_FOR_HELP])).toEqual([]);
    expect(sources).toContain("src/cli/ask.ts");
  });

  test("an ask through a running daemon loads ask's protocol and socket client, nothing of the in-process turn", async () => {
    const given = await askEnv();
    const daemon = await startFermixDaemon(given.env);
    defer(() => daemon.stop());
    // Plain words (--daemon among them) go before the command tree loads (src/cli/ask-early.ts) and their answer is
    // printed without it (src/cli/ask-early-answer.ts); with an option, ask's run sends it on its own socket client.
    const cases: [string[], "entry" | "run"][] = [
      [["ask", "--daemon", "hi"], "entry"],
      [["ask", "hi"], "entry"],
      [["ask", "--timeout", "300000", "hi"], "run"],
    ];
    for (const [argv, path] of cases) {
      const { code, stdout, packages, sources } = await loadedBy(argv, given);
      expect({ code, stdout }).toEqual({ code: 0, stdout: '{"name":"Ada"}\n' });
      expect(MUST_NOT_LOAD.filter((p) => packages.has(p))).toEqual([]);
      // ask walks a tree of its own (src/cli/ask-root.ts): the table of every verb stays unloaded.
      expect(among(sources, [...HEAVY_SOURCES, "src/cli/command-tree.ts"])).toEqual([]);
      if (path === "run") {
        expect(sources).toContain("src/protocol/ask-client.ts");
        expect(sources).toContain("src/cli/dispatch.ts");
        continue;
      }
      expect(sources).toContain("src/cli/ask-early-answer.ts");
      // The answer's events are checked by hand (src/protocol/ask-answer-check.ts): a plain ask builds no schema.
      expect(packages.has("valibot")).toBe(false);
      expect(
        among(sources, ["src/cli/dispatch.ts", "src/cli/ask-root.ts", "src/cli/ask.ts", "src/cli/ask-run.ts"]),
      ).toEqual([]);
    }
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
