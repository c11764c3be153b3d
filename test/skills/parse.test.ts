import { describe, expect, test } from "bun:test";
import { parseSkill, renderSkill, SkillInvalid } from "../../src/skills/parse.ts";

const where = { file: "skills/notes/SKILL.md", folder: "notes" };
const skill = (front: string, body = "# Notes\n\nDo the thing.") => `---\n${front}\n---\n\n${body}\n`;

function failure(text: string, at = where): { message: string; field?: string } {
  try {
    parseSkill(text, at);
  } catch (err) {
    expect(SkillInvalid.is(err)).toBe(true);
    const e = err as ReturnType<typeof SkillInvalid>;
    expect(e.data.file).toBe(at.file);
    return { message: e.message, field: e.data.field };
  }
  throw new Error("expected parseSkill to fail");
}

describe("parseSkill", () => {
  test("reads name, description, allowed_tools and the body after the front matter", () => {
    const doc = parseSkill(
      skill("name: notes\ndescription: Use when the user asks about notes.\nallowed_tools: [file_read, shell]"),
      where,
    );
    expect(doc).toEqual({
      name: "notes",
      description: "Use when the user asks about notes.",
      allowedTools: ["file_read", "shell"],
      body: "# Notes\n\nDo the thing.",
    });
  });

  test("allowed_tools: [] means no tools; leaving it out means the trust default", () => {
    expect(parseSkill(skill("name: notes\ndescription: d\nallowed_tools: []"), where).allowedTools).toEqual([]);
    expect(parseSkill(skill("name: notes\ndescription: d"), where).allowedTools).toBeUndefined();
  });

  test("plain values keep colons and hashes; double quotes take JSON escapes; comments and blank lines are skipped", () => {
    const doc = parseSkill(
      skill(
        '# a comment\n\nname: "notes"\ndescription: Use for C# code: the "why" too\nallowed_tools: ["file_read", git_read]',
      ),
      where,
    );
    expect(doc.description).toBe('Use for C# code: the "why" too');
    expect(doc.allowedTools).toEqual(["file_read", "git_read"]);
    const quoted = parseSkill(skill('name: notes\ndescription: "say \\"hi\\", then go"'), where);
    expect(quoted.description).toBe('say "hi", then go');
  });

  test("a byte-order mark and CRLF line ends are fine", () => {
    const text = "\uFEFF---\r\nname: notes\r\ndescription: d\r\n---\r\nbody\r\n";
    expect(parseSkill(text, where).body).toBe("body");
  });

  test.each([
    ["no front matter", "# Notes\n", undefined, "must start with a `---` line"],
    ["an unclosed front matter", "---\nname: notes\ndescription: d\n", undefined, "no closing `---`"],
    ["a missing name", skill("description: d"), "name", "name: missing"],
    ["a missing description", skill("name: notes"), "description", "description: missing"],
    ["an empty description", skill('name: notes\ndescription: ""'), "description", "description: expected"],
    ["a long description", skill(`name: notes\ndescription: ${"x".repeat(301)}`), "description", "300"],
    ["an invalid name", skill("name: Notes\ndescription: d"), "name", "lowercase letters"],
    ["a name unlike its folder", skill("name: other\ndescription: d"), "name", 'its folder\'s name "notes"'],
    ["an unknown key", skill("name: notes\ndescription: d\nallowed_tool: []"), "allowed_tool", "unknown field"],
    ["a key given twice", skill("name: notes\nname: notes\ndescription: d"), "name", "given twice"],
    ["a list that is a string", skill("name: notes\ndescription: d\nallowed_tools: shell"), "allowed_tools", "a list"],
    ["a bad tool name", skill("name: notes\ndescription: d\nallowed_tools: [rm -rf]"), "allowed_tools", "tool names"],
    ["a multi-line list", skill("name: notes\ndescription: d\nallowed_tools: [a,\n  b]"), "allowed_tools", "same line"],
    ["an indented line", skill("name: notes\ndescription: d\n  more: x"), undefined, "line 4: expected `key: value`"],
    ["a block scalar", skill("name: notes\ndescription: |"), "description", "unsupported value"],
    ["a broken quoted value", skill('name: notes\ndescription: "open'), "description", "quoted value"],
    ["an empty body", skill("name: notes\ndescription: d", ""), "body", "body after the front matter is empty"],
  ])("%s is an error naming the file and the field", (_what, text, field, message) => {
    const error = failure(text);
    expect(error.message).toStartWith(`${where.file}: `);
    expect(error.message).toContain(message);
    expect(error.field).toBe(field);
  });
});

describe("renderSkill", () => {
  test.each([
    "Use when asked.",
    'Use for C# code: the "why", too',
    '"quoted" at the start',
    "[brackets] first",
    " leading space",
  ])("round-trips the description %p", (description) => {
    const doc = { name: "notes", description: description.trim(), allowedTools: ["file_read"], body: "# Notes\nGo." };
    expect(parseSkill(renderSkill(doc), where)).toEqual(doc);
  });

  test("leaves allowed_tools out when the skill uses the trust default", () => {
    const text = renderSkill({ name: "notes", description: "d", body: "b" });
    expect(text).toBe("---\nname: notes\ndescription: d\n---\n\nb\n");
  });
});
