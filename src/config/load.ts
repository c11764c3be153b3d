import { parse, TomlError } from "smol-toml";
import * as v from "valibot";
import { defineError } from "../error.ts";
import { fileExists, readText } from "../runtime/files.ts";
import { deepestIssue } from "../valibot-issues.ts";
import { Config } from "./schema.ts";

export const ConfigInvalid = defineError<{ file: string; section?: string; key?: string; line?: number }>(
  "config_invalid",
);

/** Reads and validates config.toml. A missing file is an empty config (zero-config first run); nothing is written. */
export async function loadConfig(file: string): Promise<Config> {
  if (!(await fileExists(file))) return {};
  return parseConfig(await readText(file), file);
}

export function parseConfig(text: string, file: string): Config {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split("\n")[0];
      throw ConfigInvalid(`${file}: line ${err.line}, column ${err.column}: not valid TOML: ${first}`, {
        file,
        line: err.line,
      });
    }
    throw err;
  }
  const result = v.safeParse(Config, raw);
  if (result.success) return result.output;
  const issue = deepestIssue(result.issues[0]);
  throw ConfigInvalid(renderIssue(file, issue), { file, ...issuePlace(issue) });
}

type Issue = v.BaseIssue<unknown>;

function issuePlace(issue: Issue): { section?: string; key?: string } {
  const keys = (issue.path ?? []).map((p) => String(p.key));
  if (!keys.length) return {};
  return { section: keys.slice(0, -1).join("."), key: keys.at(-1) };
}

function renderIssue(file: string, issue: Issue): string {
  const keys = (issue.path ?? []).map((p) => String(p.key));
  const key = keys.at(-1);
  const section = keys.slice(0, -1);
  const where = section.length ? `[${section.join(".")}]` : "top level";
  if (issue.type === "strict_object" && issue.expected === "never") {
    const hint = unknownKeyHint(section, key);
    return `${file}: ${where} unknown key "${key}"${hint}`;
  }
  const received = issue.received === "undefined" ? "nothing" : issue.received;
  const expected = describeExpected(issue);
  return `${file}: ${where} ${key}: expected ${expected}, got ${received}`;
}

function unknownKeyHint(section: string[], key: string | undefined): string {
  const path = section.join(".");
  if (path === "fermix_core.providers") {
    return " (known providers: openai_codex, openai, anthropic, xai, openrouter, mistral, ollama)";
  }
  if (path.startsWith("fermix_core.providers.") && key === "reasoning_effort") {
    return ` (${section.at(-1)} has no reasoning-effort setting; remove the key)`;
  }
  return " (remove it, or check its spelling)";
}

function describeExpected(issue: Issue): string {
  // Custom messages from the schema (e.g. "must be a URL …") read better than valibot's type names.
  if (issue.message && !issue.message.startsWith("Invalid")) return issue.message;
  switch (issue.expected) {
    case "boolean":
      return "true or false";
    case "string":
      return "a quoted string";
    case "number":
      return "a number";
    case "Array":
      return 'a list such as ["a", "b"]';
    case "Object":
      return "a table";
    default:
      return issue.expected ?? "a different value";
  }
}
