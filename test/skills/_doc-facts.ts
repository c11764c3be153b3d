import type { ArgDef } from "citty";
import { parse as parseToml } from "smol-toml";
import * as v from "valibot";
import type { AnyTool } from "../../src/capabilities/tool.ts";
import { flagsOf } from "../../src/cli/args.ts";
import { type CommandDef, resolveValue } from "../../src/cli/command.ts";
import { parseConfig } from "../../src/config/load.ts";
import { Config } from "../../src/config/schema.ts";

/**
 * What documentation claims about fermix, pulled out by explicit rules so a test can hold each claim
 * against the code. The rules (also the contract for whoever writes the bundled skills):
 *
 * Commands — in inline code spans and in sh/bash/console code blocks (after `#` comments are removed), each
 *   `fermix WORD …` at a command position (line start, after whitespace, `/`, `|`, `;`, `&` or `(`) is a
 *   command. WORD must be a verb of the command tree (src/cli/command-tree.ts) or help/version; the words after it follow
 *   its subcommands, and a group that runs nothing itself must be given one of them; every option must be one
 *   the command reached declares (long, `--no-` form of a boolean, or short alias).
 * Config — a TOML code block must pass parseConfig as a whole. An inline span `[section]`,
 *   `[section] key` or `[section] key = value` must name a section/key the schema accepts (with a value, the
 *   snippet must pass parseConfig); `<placeholder>` segments stand for any name. An inline span
 *   `key = value` (no section) must name a key that exists somewhere in the schema.
 * Tools — a call in an inline span (`skill_view(...)`), a code span before the first colon of a list item under a
 *   heading starting with "Tools", or an item of an `allowed_tools: [...]` line anywhere, must be a known tool. An
 *   inline span that is a snake_case word with an underscore (`file_read`) must be a known tool or one of the other
 *   snake_case names a skill may show in code (Facts.names: a tool's argument, a config key, a reference file of
 *   the skill); anything else — a tool that does not exist, or one the build lacks — is written without backticks.
 */
export type Facts = {
  commands: Map<string, CommandNode>;
  tools: ReadonlySet<string>;
  /** Snake_case words a span may hold besides tool names (argument names, config keys, reference files). */
  names?: ReadonlySet<string>;
};

/** A command of the tree with everything lazy resolved, so the checks below stay synchronous. */
export type CommandNode = { args: Record<string, ArgDef>; subs: Map<string, CommandNode>; runs: boolean };

export async function resolveTree(cmd: CommandDef<any>): Promise<CommandNode> {
  const subs = new Map<string, CommandNode>();
  for (const [name, sub] of Object.entries(cmd.subCommands ? await resolveValue(cmd.subCommands) : {})) {
    const resolved = await resolveValue(sub);
    const node = await resolveTree(resolved);
    subs.set(name, node);
    const alias = (await resolveValue(resolved.meta ?? {})).alias;
    for (const a of [alias ?? []].flat()) subs.set(a, node);
  }
  return { args: (await resolveValue(cmd.args ?? {})) as Record<string, ArgDef>, subs, runs: Boolean(cmd.run) };
}

type Span = { text: string; line: number };
type Block = { lang: string; text: string; line: number };
export type Doc = { spans: Span[]; blocks: Block[]; toolListSpans: Span[]; lines: string[] };

export function scanMarkdown(text: string): Doc {
  const lines = text.split("\n");
  const spans: Span[] = [];
  const blocks: Block[] = [];
  const toolListSpans: Span[] = [];
  let fence: Block | undefined;
  let inTools = false;
  lines.forEach((line, i) => {
    const fenceMatch = /^\s*```\s*([\w-]*)/.exec(line);
    if (fenceMatch) {
      if (fence) {
        blocks.push(fence);
        fence = undefined;
      } else fence = { lang: fenceMatch[1]!.toLowerCase(), text: "", line: i + 1 };
      return;
    }
    if (fence) {
      fence.text += `${line}\n`;
      return;
    }
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) inTools = /^tools\b/i.test(heading[1]!);
    for (const m of line.matchAll(/`([^`]+)`/g)) spans.push({ text: m[1]!, line: i + 1 });
    if (inTools && /^\s*[-*]\s/.test(line)) {
      for (const m of itemHead(line).matchAll(/`([^`]+)`/g)) toolListSpans.push({ text: m[1]!, line: i + 1 });
    }
  });
  return { spans, blocks, toolListSpans, lines };
}

/** A list item up to its first colon outside code spans (the names it introduces). */
function itemHead(line: string): string {
  let inCode = false;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === "`") inCode = !inCode;
    else if (line[i] === ":" && !inCode) return line.slice(0, i);
  }
  return line;
}

// ——— commands ———

const SHELL_LANGS = new Set(["sh", "bash", "shell", "console", "zsh"]);
const META_VERBS = new Set(["help", "version", "--version", "-V", "--help", "-h"]);
const STOP = new Set(["|", "||", "&&", ";", ")", ">", ">>", "<", "2>", "2>&1", "&"]);

export function commandMentions(doc: Doc): Span[] {
  const out: Span[] = [];
  const find = (text: string, line: number) => {
    for (const m of text.matchAll(/(?:^|[\s/|;&(])fermix\s+([^\n]+)/g)) out.push({ text: m[1]!, line });
  };
  for (const span of doc.spans) find(span.text, span.line);
  for (const block of doc.blocks.filter((b) => SHELL_LANGS.has(b.lang))) {
    block.text.split("\n").forEach((raw, i) => {
      find(raw.replace(/(^|\s)#.*$/, ""), block.line + 1 + i);
    });
  }
  return out;
}

export function checkCommand(mention: string, facts: Facts): string | undefined {
  const words = shellWords(mention);
  const end = words.findIndex((w) => STOP.has(w));
  const args = end < 0 ? words : words.slice(0, end);
  const [verb, ...rest] = args;
  if (!verb || META_VERBS.has(verb)) return undefined;
  let command = facts.commands.get(verb);
  if (!command) return `"fermix ${verb}": no such verb (known: ${[...facts.commands.keys()].join(", ")})`;
  let path = verb;
  const options: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (word === "--") break;
    if (word.startsWith("-") && word !== "-") {
      options.push(word);
      const option = findOption(command, word);
      if (
        option &&
        (option.type === "string" || option.type === "enum") &&
        !word.includes("=") &&
        /^-[^-]$|^--[^=]+$/.test(word)
      )
        i++;
      continue;
    }
    const sub = command.subs.get(word);
    if (sub) {
      command = sub;
      path += ` ${word}`;
      continue;
    }
    if (command.subs.size && !command.runs) {
      return `"fermix ${path} ${word}": not a subcommand of ${path} (${[...command.subs.keys()].join(", ")})`;
    }
    break;
  }
  // Options given before a subcommand's word belong to the command reached, as the dispatcher has it.
  for (const word of options) {
    if (!findOption(command, word)) return `"fermix ${path} ${word}": ${path} has no option ${word.split("=")[0]}`;
  }
  return undefined;
}

function findOption(command: CommandNode, word: string): ArgDef | undefined {
  if (word === "--help" || word === "-h") return { type: "boolean" };
  const flag = word.startsWith("--") ? word.split("=")[0]! : word.slice(0, 2);
  for (const [name, def] of Object.entries(command.args)) {
    if (def.type === "positional") continue;
    const flags = flagsOf(name, def);
    if (flags.includes(flag) || (def.type === "boolean" && flag === `--no-${name}`)) return def;
  }
  return undefined;
}

function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(/"(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']+/g)) words.push(m[0]);
  return words;
}

// ——— config ———

type Path = string[];

/** Every key path the schema accepts; `*` stands for a name the owner chooses (a record's key). */
export function schemaLeaves(schema: any = Config, path: Path = []): Path[] {
  const s = unwrap(schema);
  if (s.type === "strict_object" || s.type === "object") {
    return Object.entries(s.entries).flatMap(([k, e]) => schemaLeaves(e, [...path, k]));
  }
  if (s.type === "record") return schemaLeaves(s.value, [...path, "*"]);
  return [path];
}

function unwrap(schema: any): any {
  // A lazily built schema (src/valibot-lazy.ts) is read as the schema it builds.
  if (schema?.type === "lazy") return unwrap(schema.getter(undefined));
  return schema.type === "optional" || schema.type === "nullable" ? unwrap(schema.wrapped) : schema;
}

const SECTION_SPAN = /^\[([A-Za-z0-9_.<>-]+)\](?:\s+([A-Za-z0-9_]+)(?:\s*=\s*(.+))?)?$/;
const KEY_SPAN = /^([a-z][a-z0-9_]*)\s*=\s*\S/;

/** Problems with the config claims of a document, and every key path it documents. */
export function checkConfig(doc: Doc): { problems: string[]; paths: Path[] } {
  const problems: string[] = [];
  const paths: Path[] = [];
  const knownKeys = new Set(schemaLeaves().map((p) => p.at(-1)));
  for (const block of doc.blocks.filter((b) => b.lang === "toml")) {
    try {
      parseConfig(block.text, `line ${block.line}`);
      paths.push(...tomlPaths(parseToml(block.text)));
    } catch (err) {
      problems.push(`TOML block at line ${block.line}: ${(err as Error).message}`);
    }
  }
  for (const span of doc.spans) {
    const section = SECTION_SPAN.exec(span.text);
    if (section) {
      const sectionPath = section[1]!.split(".").map((s) => (/^<.*>$/.test(s) ? "example" : s));
      const key = section[2];
      const path = key ? [...sectionPath, key] : sectionPath;
      paths.push(path);
      const problem = checkPlace(sectionPath, key, section[3]);
      if (problem) problems.push(`line ${span.line}: \`${span.text}\`: ${problem}`);
      continue;
    }
    const bare = KEY_SPAN.exec(span.text);
    if (bare && !knownKeys.has(bare[1]!)) {
      problems.push(`line ${span.line}: \`${span.text}\`: no config key is called ${bare[1]}`);
    }
  }
  return { problems, paths };
}

function checkPlace(section: Path, key: string | undefined, value: string | undefined): string | undefined {
  const header = `[${section.map((s) => (/^[A-Za-z0-9_-]+$/.test(s) ? s : JSON.stringify(s))).join(".")}]`;
  if (key && value !== undefined) {
    try {
      parseConfig(`${header}\n${key} = ${value}\n`, "span");
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }
  const raw = parseToml(key ? `${header}\n${key} = "__truth_test__"\n` : `${header}\n`);
  const target = key ? [...section, key] : section;
  for (const issue of allIssues(v.safeParse(Config, raw).issues ?? [])) {
    const at = (issue.path ?? []).map((p: any) => String(p.key));
    const unknown = issue.type === "strict_object" && issue.expected === "never";
    if (unknown && at.length <= target.length && at.every((k: string, i: number) => k === target[i])) {
      return `unknown key "${at.at(-1)}" in [${at.slice(0, -1).join(".")}]`;
    }
    // A section mentioned on its own must be a table (a key mentioned alone may hold any type).
    if (!key && !unknown && at.join(".") === target.join(".")) return `${target.join(".")} is not a table`;
  }
  return undefined;
}

function allIssues(issues: readonly v.BaseIssue<unknown>[]): v.BaseIssue<unknown>[] {
  return issues.flatMap((i) => [i, ...allIssues(i.issues ?? [])]);
}

function tomlPaths(value: unknown, path: Path = []): Path[] {
  if (value && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)) {
    const entries = Object.entries(value);
    return entries.length ? entries.flatMap(([k, inner]) => tomlPaths(inner, [...path, k])) : [path];
  }
  return [path];
}

/** Whether `documented` covers the schema leaf `leaf` (`*` matches any name; trailing `*`s are "any key"). */
export function covers(documented: Path, leaf: Path): boolean {
  const pattern = [...leaf];
  while (pattern.at(-1) === "*") pattern.pop();
  return pattern.length <= documented.length && pattern.every((seg, i) => seg === "*" || seg === documented[i]);
}

// ——— tools ———

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
const CALL = /^([a-z][a-z0-9_]*)\(/;

export function checkTools(doc: Doc, tools: ReadonlySet<string>, names: ReadonlySet<string> = new Set()): string[] {
  const problems: string[] = [];
  const expect = (name: string, line: number, why: string) => {
    if (!tools.has(name)) problems.push(`line ${line}: \`${name}\` (${why}) is not a registered tool`);
  };
  for (const span of doc.spans) {
    if (SNAKE.test(span.text) && !tools.has(span.text) && !names.has(span.text)) {
      problems.push(
        `line ${span.line}: \`${span.text}\` (a snake_case name) is not a registered tool, a tool's argument, a config key, a trace type or a reference file`,
      );
    }
    const call = CALL.exec(span.text);
    if (call) expect(call[1]!, span.line, "a call");
  }
  for (const span of doc.toolListSpans) expect(span.text, span.line, "listed under a Tools heading");
  doc.lines.forEach((line, i) => {
    const list = /allowed_tools:\s*\[([^\]]*)\]/.exec(line);
    if (!list) return;
    for (const name of list[1]!.split(",").map((s) => s.trim().replace(/^"|"$/g, ""))) {
      if (name) expect(name, i + 1, "in allowed_tools");
    }
  });
  return problems;
}

// ——— a whole skill ———

/** The top-level argument names of a tool's valibot parameters. */
function argumentNames(tool: AnyTool): string[] {
  const schema = unwrap(tool.parameters as any);
  return schema?.entries ? Object.keys(schema.entries) : [];
}

/** Every config key and section name of the schema, `*` (an owner's name) left out. */
export function configNames(): string[] {
  return [...new Set(schemaLeaves().flat())].filter((k) => k !== "*");
}

/**
 * What the skill files are held against: the command tree of src/cli/command-tree.ts (every lazy subcommand loaded), the
 * tools fermix can offer (built-ins including the channel-only ones, web and skill tools, the deferral bridges,
 * the coding-harness tools, computer_use), and the other snake_case names a span may hold.
 */
export async function loadFacts(references: readonly string[] = []): Promise<Facts> {
  const [
    { fermix },
    { BUILTIN_TOOLS },
    { SKILL_TOOLS },
    { WEB_TOOLS },
    { BRIDGES },
    { HARNESS_TOOLS },
    { TRACE_TYPES },
    { computerUseListing },
  ] = await Promise.all([
    import("../../src/cli/command-tree.ts"),
    import("../../src/capabilities/builtins/registry.ts"),
    import("../../src/capabilities/builtins/skill-tools.ts"),
    import("../../src/capabilities/builtins/web-tools.ts"),
    import("../../src/capabilities/deferral/bridges.ts"),
    import("../../src/harness/capability-rows.ts"),
    import("../../src/observability/trace-files.ts"),
    import("../../src/cli/capabilities-computer-use.ts"),
  ]);
  // computer_use is made per turn from the open display (computer-use subsystem), so no registry holds it.
  const all: AnyTool[] = [
    ...BUILTIN_TOOLS,
    ...WEB_TOOLS,
    ...SKILL_TOOLS,
    ...BRIDGES,
    ...HARNESS_TOOLS,
    computerUseListing(),
  ];
  return {
    commands: (await resolveTree(fermix)).subs,
    tools: new Set(all.map((t) => t.name)),
    // Trace types (`fermix logs --traces channel_stream`) are snake_case names a skill may show too.
    names: new Set([...all.flatMap(argumentNames), ...configNames(), ...TRACE_TYPES, ...references]),
  };
}

/** Every problem of one skill document: its commands, config keys and tool names against the facts. */
export function documentProblems(text: string, facts: Facts): string[] {
  const doc = scanMarkdown(text);
  return [
    ...commandMentions(doc).flatMap((m) => {
      const problem = checkCommand(m.text, facts);
      return problem ? [`line ${m.line}: ${problem}`] : [];
    }),
    ...checkConfig(doc).problems,
    ...checkTools(doc, facts.tools, facts.names),
  ];
}

/**
 * Every problem of a whole skill, `file: line N: …`: each file (SKILL.md and its reference files, by name) checked
 * with documentProblems, its reference files' names accepted in code spans.
 *
 * @example skillProblems({ "SKILL.md": "Run `fermix frobnicate`." }, await loadFacts()) // ['SKILL.md: line 1: "fermix frobnicate": no such verb …']
 */
export function skillProblems(files: Record<string, string>, facts: Facts): string[] {
  const references = Object.keys(files)
    .filter((f) => f !== "SKILL.md")
    .map((f) => f.replace(/\.md$/, ""));
  const withRefs: Facts = { ...facts, names: new Set([...(facts.names ?? []), ...references]) };
  return Object.entries(files).flatMap(([file, text]) => documentProblems(text, withRefs).map((p) => `${file}: ${p}`));
}
