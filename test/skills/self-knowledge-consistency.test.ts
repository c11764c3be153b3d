import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadFacts, skillProblems } from "./_doc-facts.ts";

/**
 * Issue 27 item 6: the self-knowledge skill checked as a whole (SKILL.md and every reference file) against this
 * build — each command against the CLI tree, each config key against the schema, each tool name against the
 * registry — and the same check failing, by name, on a skill that claims what the build does not have.
 */
const SKILL_DIR = resolve(import.meta.dir, "..", "..", "skills", "self-knowledge");
const real: Record<string, string> = Object.fromEntries(
  readdirSync(SKILL_DIR)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => [f, readFileSync(join(SKILL_DIR, f), "utf8")]),
);
const facts = await loadFacts();

/** The real skill with `text` appended to one of its files. */
const withLine = (file: string, text: string) => ({ ...real, [file]: `${real[file]}\n${text}\n` });

describe("the self-knowledge skill, checked as a whole", () => {
  test("has the coding_harness, voice and browser reference files, and every claim in it holds", () => {
    expect(Object.keys(real)).toEqual(expect.arrayContaining(["coding_harness.md", "voice.md", "browser.md"]));
    expect(skillProblems(real, facts)).toEqual([]);
  });

  test("fails on a skill that names a verb that does not exist, naming the verb and where", () => {
    const problems = skillProblems(withLine("SKILL.md", "- `fermix frobnicate` tidies the workspace."), facts);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SKILL\.md: line \d+: "fermix frobnicate": no such verb \(known: .*\bask\b/);
  });

  test("fails on such a verb in a reference file's shell block, and on a subcommand a verb does not have", () => {
    const block = skillProblems(withLine("voice.md", "```sh\nfermix frobnicate --now\n```"), facts);
    expect(block).toEqual([expect.stringMatching(/^voice\.md: line \d+: "fermix frobnicate": no such verb/)]);
    const sub = skillProblems(withLine("voice.md", "Run `fermix voice frobnicate`."), facts);
    expect(sub).toEqual([expect.stringContaining('"fermix voice frobnicate": not a subcommand of voice (status)')]);
  });

  test("fails on a config key the schema does not have, in a span or a TOML block", () => {
    const span = skillProblems(withLine("coding_harness.md", "Set `[fermix_core.harness] frobnicate_minutes`."), facts);
    expect(span).toEqual([expect.stringMatching(/^coding_harness\.md: .*unknown key "frobnicate_minutes"/)]);
    const block = skillProblems(
      withLine("browser.md", "```toml\n[fermix_core.tools.browser]\nfrobnicate = true\n```"),
      facts,
    );
    expect(block).toEqual([expect.stringMatching(/^browser\.md: TOML block at line \d+: .*frobnicate/)]);
  });

  test("fails on a tool the registry does not have, as a name or a call", () => {
    const name = skillProblems(withLine("SKILL.md", "- `frobnicate_repo`: tidies a repo."), facts);
    expect(name).toEqual([expect.stringMatching(/^SKILL\.md: line \d+: `frobnicate_repo` \(a snake_case name\)/)]);
    const call = skillProblems(withLine("browser.md", 'Call `frobnicate_repo(path: "x")`.'), facts);
    expect(call).toEqual([expect.stringContaining("`frobnicate_repo` (a call) is not a registered tool")]);
    // The spec's cloud rail is not in this build: naming its tool as available fails too.
    expect(skillProblems(withLine("coding_harness.md", "`codex_cloud_run` starts a cloud run."), facts)).toHaveLength(
      1,
    );
  });

  test("accepts a reference file's name in code only where the skill has that file", () => {
    const { "coding_harness.md": _, ...without } = real;
    const problems = skillProblems(without, facts);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.includes("`coding_harness`"))).toBe(true);
  });
});
