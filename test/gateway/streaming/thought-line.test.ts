import { describe, expect, test } from "bun:test";
import { THOUGHT_MAX_CHARS, thoughtLine } from "../../../src/gateway/streaming/thought-line.ts";

describe("thoughtLine", () => {
  test("a summary part's bold first line is its heading", () => {
    expect(thoughtLine("**Checking the calendar**\n\nThe owner asked about Friday.")).toBe("💭 Checking the calendar");
  });

  test("a part without a bold heading shows its first line", () => {
    expect(thoughtLine("  Looking for the file\nthen reading it")).toBe("💭 Looking for the file");
  });

  test("a long heading is cut at a word, into one short line", () => {
    const line = thoughtLine(`**${"word ".repeat(60).trim()}**`)!;
    expect(line.length).toBeLessThanOrEqual(THOUGHT_MAX_CHARS + 3);
    expect(line).toEndWith("word…");
    expect(line).not.toContain("\n");
  });

  test("a part with no words gives no line", () => {
    expect(thoughtLine("  \n\n")).toBeUndefined();
    expect(thoughtLine("****")).toBeUndefined();
  });
});
