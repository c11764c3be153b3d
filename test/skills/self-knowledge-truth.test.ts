import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseSkill } from "../../src/skills/parse.ts";
import { checkConfig, covers, documentProblems, loadFacts, scanMarkdown, schemaLeaves } from "./_doc-facts.ts";

/**
 * The bundled self-knowledge skill may only claim what fermix really has: every command, config key and
 * tool it names is checked against the code (rules in _doc-facts.ts). A doc that needs a new verb, key or
 * tool fails here until the code has it.
 */
const ROOT = resolve(import.meta.dir, "..", "..");
const SKILL_DIR = join(ROOT, "skills", "self-knowledge");
const FILES = readdirSync(SKILL_DIR, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".md"))
  .sort();

// The skill's own reference files may be named in code spans (`coding_harness`).
const facts = await loadFacts(FILES.filter((f) => f !== "SKILL.md").map((f) => f.replace(/\.md$/, "")));
const read = (file: string) => readFileSync(join(SKILL_DIR, file), "utf8");
const problemsOf = (text: string) => documentProblems(text, facts);

describe("the bundled self-knowledge skill", () => {
  test("has the files it promises: SKILL.md plus plugins, sandbox, jobs, config, coding_harness, voice and browser", () => {
    expect(FILES).toEqual(
      expect.arrayContaining([
        "SKILL.md",
        "plugins.md",
        "sandbox.md",
        "jobs.md",
        "config.md",
        "coding_harness.md",
        "voice.md",
        "browser.md",
      ]),
    );
    expect(facts.commands.has("ask")).toBe(true);
    expect(facts.commands.has("skills")).toBe(true);
  });

  test("SKILL.md parses and lists exactly its reference files", () => {
    const text = read("SKILL.md");
    const doc = parseSkill(text, { file: "SKILL.md", folder: "self-knowledge" });
    // The paragraph that starts "Reference files" lists them as "- `name`: what it covers".
    const paragraph = /^Reference files[^\n]*\n((?:- [^\n]*\n)+)/m.exec(doc.body)?.[1] ?? "";
    const listed = [...paragraph.matchAll(/^- `([a-z_-]+)`:/gm)].map((m) => `${m[1]}.md`).sort();
    expect(listed).toEqual(FILES.filter((f) => f !== "SKILL.md"));
  });

  for (const file of FILES) {
    test(`${file}: every command, config key and tool it names exists`, () => {
      expect(problemsOf(read(file))).toEqual([]);
    });
  }

  test("config.md documents every key the config schema accepts", () => {
    const documented = checkConfig(scanMarkdown(read("config.md"))).paths;
    // Provider tables share their keys: each table must be named, and each key documented on one of them.
    const isProvider = (p: string[]) => p[0] === "fermix_core" && p[1] === "providers";
    const missing = schemaLeaves()
      .filter((leaf) => {
        if (documented.some((d) => covers(d, leaf))) return false;
        if (!isProvider(leaf)) return true;
        const tableNamed = documented.some((d) => covers(d, leaf.slice(0, 3)));
        const keyNamed = documented.some((d) => isProvider(d) && d[3] === leaf[3]);
        return !(tableNamed && keyNamed);
      })
      .map((leaf) => leaf.join("."));
    expect(missing).toEqual([]);
  });
});

describe("the truth rules catch typos", () => {
  const cases: [string, string][] = [
    ["an unknown verb", "Run `fermix skils list`."],
    ["an unknown subcommand", "Run `fermix sandbox explian ~/x`."],
    ["an unknown option", "```sh\ngit diff | fermix ask --jsno hi\n```"],
    ["an unknown short option", "`fermix ask -q hi`"],
    ["a misspelt key in a TOML block", '```toml\n[sandbox]\nalowed_roots = ["~/x"]\n```'],
    ["a wrong value in a TOML block", '```toml\n[sandbox]\nmode = "loose"\n```'],
    ["a misspelt key in a span", "Set `[sandbox] alowed_roots`."],
    ["a misspelt section in a span", "Set `[fermix_core.tool.web_search] backend`."],
    ["a key that is not a table", "See `[sandbox.mode]`."],
    ["a wrong value in a span", 'Set `[fermix_core.tools.web_search] backend = "bing"`.'],
    ["an unknown bare key", 'Write `defaultt_model = "x"`.'],
    ["a misspelt tool", "Call `file_reed`."],
    ["a tool that does not exist", "Use `summon_dragon(every: 5)`."],
    ["a non-tool under a Tools heading", "## Tools\n- `shel`: runs commands"],
    ["an unknown tool in allowed_tools", "allowed_tools: [file_read, teleport]"],
  ];
  for (const [what, text] of cases) {
    test(what, () => {
      expect(problemsOf(text).length).toBeGreaterThan(0);
    });
  }

  test("and accept what is right", () => {
    const text = [
      "`fermix ask --json -s work hi`, `fermix sandbox explain ~/.ssh`, `fermix grant path ~/data`, `fermix --version`",
      '```sh\nid=$(fermix ask --json "x" | jq -r .session_id) # fermix bogus in a comment\n```',
      "`[sandbox] allowed_roots`, `[mcp.servers.<name>] command`, `[fermix_core.tools.generate_image]`",
      '`[fermix_core.tools.web_search] backend = "brave"`, `primary = true`',
      "## Tools\n- `shell`: runs `sh -c`, see `file`",
      '`file_read`, `skill_view(name: "x")`',
    ].join("\n");
    expect(problemsOf(text)).toEqual([]);
  });
});
