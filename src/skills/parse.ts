import * as v from "valibot";
import { defineError } from "../error.ts";
import { renderFrontMatter, splitFrontMatter } from "./front-matter.ts";

/** A skill's name: also its folder's name, so it must be safe as one. */
export const SKILL_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const LEADING_BLANK_LINES = /^\s*\n/;

export const SkillInvalid = defineError<{ file: string; field?: string }>("skill_invalid");

/** What a SKILL.md declares above its body. Unknown keys are refused: a misspelt allowed_tools must not widen a skill. */
export const SkillFrontMatter = v.strictObject({
  name: v.pipe(
    v.string("a single line of text"),
    v.regex(SKILL_NAME, "lowercase letters, digits, - or _, starting with a letter, at most 64 characters"),
  ),
  description: v.pipe(
    v.string("a single line of text"),
    v.trim(),
    v.minLength(1, "a sentence saying when to use the skill"),
    v.maxLength(300, "at most 300 characters"),
  ),
  allowed_tools: v.optional(
    v.array(
      v.pipe(v.string(), v.regex(TOOL_NAME, "tool names such as file_read")),
      "a list such as [file_read, shell]",
    ),
  ),
});
export type SkillFrontMatter = v.InferOutput<typeof SkillFrontMatter>;

const REQUIRED: Record<string, string> = {
  name: "the folder's name",
  description: "one sentence saying when to use the skill",
};

export type SkillDoc = {
  name: string;
  description: string;
  /** undefined: the trust default; []: no tools at all. */
  allowedTools?: string[];
  /** The Markdown after the front matter. */
  body: string;
};

/**
 * Reads one SKILL.md. `file` is how the file is named in errors; `folder` is the folder it sits in, whose
 * name the skill's name must equal (a skill is found by its folder, and must be called what it is found as).
 *
 * @example parseSkill(text, { file: "~/.fermix/skills/notes/SKILL.md", folder: "notes" })
 */
export function parseSkill(text: string, where: { file: string; folder: string }): SkillDoc {
  const { file } = where;
  const split = splitFrontMatter(text);
  if (!split.ok) {
    const field = split.field ? `${split.field}: ` : "";
    throw SkillInvalid(`${file}: ${field}${split.reason}`, { file, field: split.field });
  }
  const result = v.safeParse(SkillFrontMatter, split.fields);
  if (!result.success) {
    const issue = result.issues[0];
    const field = issue.path?.map((p) => String(p.key))[0];
    if (issue.type === "strict_object" && issue.expected === "never") {
      throw SkillInvalid(`${file}: unknown field "${field}" (known: name, description, allowed_tools)`, {
        file,
        field,
      });
    }
    if (issue.input === undefined && field) {
      throw SkillInvalid(`${file}: ${field}: missing; add a line \`${field}: …\` (${REQUIRED[field] ?? "required"})`, {
        file,
        field,
      });
    }
    const got = JSON.stringify(issue.input);
    throw SkillInvalid(`${file}: ${field ?? "front matter"}: expected ${issue.message}, got ${got}`, { file, field });
  }
  const meta = result.output;
  if (meta.name !== where.folder) {
    throw SkillInvalid(`${file}: name: "${meta.name}" must equal its folder's name "${where.folder}"`, {
      file,
      field: "name",
    });
  }
  // Sliced, not replaced: a body of tens of kilobytes is not copied (issue 31).
  const blank = LEADING_BLANK_LINES.exec(split.body);
  const body = (blank ? split.body.slice(blank[0].length) : split.body).trimEnd();
  if (!body.trim()) throw SkillInvalid(`${file}: the body after the front matter is empty`, { file, field: "body" });
  return { name: meta.name, description: meta.description, allowedTools: meta.allowed_tools, body };
}

/** The SKILL.md text for a skill; `parseSkill(renderSkill(doc))` gives the same doc back. */
export function renderSkill(doc: SkillDoc): string {
  const fields: Record<string, string | string[]> = { name: doc.name, description: doc.description };
  if (doc.allowedTools) fields.allowed_tools = doc.allowedTools;
  return `${renderFrontMatter(fields)}\n${doc.body.trim()}\n`;
}
