import { describe, expect, test } from "bun:test";
import { splitFrontMatter } from "../../src/skills/front-matter.ts";

/** What splitFrontMatter gave before it cut only the head into lines: every line split at \r?\n, the body rejoined. */
function splitEveryLine(text: string): { end: number; body?: string; first: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  return { end, first: lines[0]!, body: end < 0 ? undefined : lines.slice(end + 1).join("\n") };
}

describe("splitFrontMatter", () => {
  test.each([
    ["LF", "---\nname: a\n---\n\n# Body\nline\n"],
    ["CRLF", "---\r\nname: a\r\n---\r\n\r\n# Body\r\nline\r\n"],
    ["a byte-order mark", "\uFEFF---\nname: a\n---\nbody"],
    ["mixed line ends and a lone CR", "---\nname: a\r\n---\r\nx\r\r\ny\rz\n\r\n"],
    ["the closing line last, without a newline", "---\nname: a\n---"],
    ["the closing line last, with a newline", "---\nname: a\n---\n"],
    ["a closing line with spaces", "---\nname: a\n  ---  \nbody --- here\n---\n"],
    ["an empty front matter", "---\n---\nbody"],
    ["a CR before the closing line's newline", "---\nname: a\n---\r\nbody"],
  ])("with %s, the body is what splitting every line and joining them gives", (_what, text) => {
    const split = splitFrontMatter(text);
    const reference = splitEveryLine(text);
    expect(split.ok).toBe(true);
    if (!split.ok) return;
    expect(split.body).toBe(reference.body!);
    expect(split.fields).toEqual({ ...(text.includes("name: a") ? { name: "a" } : {}) });
  });

  test.each([
    ["no opening line", "name: a\n---\nbody", "must start with a `---` line"],
    ["an empty text", "", "must start with a `---` line"],
    ["no closing line", "---\nname: a\nbody\n", "no closing `---` line"],
    ["only the opening line", "---", "no closing `---` line"],
  ])("with %s, it says what is wrong", (_what, text, reason) => {
    const split = splitFrontMatter(text);
    expect(split.ok).toBe(false);
    if (!split.ok) expect(split.reason).toContain(reason);
  });
});
