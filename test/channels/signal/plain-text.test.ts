import { describe, expect, test } from "bun:test";
import { markdownToPlain } from "../../../src/channels/signal/plain-text.ts";

describe("markdownToPlain", () => {
  test("emphasis, strikethrough and code marks go; what they marked stays", () => {
    expect(markdownToPlain("Some **bold**, *italic*, _under_, __strong__ and ~~gone~~ with `a_b*c*`.")).toBe(
      "Some bold, italic, under, strong and gone with a_b*c*.",
    );
  });

  test("marks inside words and arithmetic are text, not emphasis", () => {
    expect(markdownToPlain("snake_case_name, 2*3*4, a*b*c and file_name_.txt")).toBe(
      "snake_case_name, 2*3*4, a*b*c and file_name_.txt",
    );
  });

  test("links show their URL; a URL keeps its underscores and stars", () => {
    expect(
      markdownToPlain(
        "[the docs](https://x.io/a_b_c) <https://y.io/_z_> https://bare.io/_q_ [https://same.io](https://same.io) ![a cat](https://c.io/cat.png)",
      ),
    ).toBe(
      "the docs (https://x.io/a_b_c) https://y.io/_z_ https://bare.io/_q_ https://same.io a cat (https://c.io/cat.png)",
    );
  });

  test("blocks: headings as lines, bullets, tasks, numbers, quotes, rules, tables, code verbatim", () => {
    const md = [
      "# Title",
      "",
      "- one",
      "* [ ] open task",
      "  1. nested **num**",
      "",
      "> quoted *line*",
      "",
      "```ts",
      "const a = **b**; // _kept_",
      "```",
      "",
      "| a | b |",
      "|---|:-:|",
      "| 1 | \\| 2 |",
      "",
      "---",
      "Escaped \\*star\\*",
    ].join("\n");
    expect(markdownToPlain(md)).toBe(
      [
        "Title",
        "",
        "• one",
        "• ☐ open task",
        "  1. nested num",
        "",
        "> quoted line",
        "",
        "const a = **b**; // _kept_",
        "",
        "a | b",
        "1 | | 2",
        "",
        "──────────",
        "Escaped *star*",
      ].join("\n"),
    );
  });

  test("runs of blank lines collapse to one and the text is trimmed", () => {
    expect(markdownToPlain("\n\nfirst\n\n\n\nsecond\n\n")).toBe("first\n\nsecond");
  });
});
