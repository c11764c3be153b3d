import { describe, expect, test } from "bun:test";
import { codepoints, MAX_CODEPOINTS, splitReply, unitsFor } from "../../../src/channels/discord/reply-chunks.ts";

describe("splitting a reply into Discord messages", () => {
  test("a short answer is one message, as written (Discord renders the Markdown itself)", () => {
    expect(splitReply("  **Hi** — see `x`.\n\n- one\n- two  ")).toEqual(["**Hi** — see `x`.\n\n- one\n- two"]);
    expect(splitReply("   ")).toEqual([]);
  });

  test("exactly 2,000 code points stays one message, even when that is more UTF-16 units", () => {
    const text = "😀".repeat(2000);
    expect(text.length).toBe(4000);
    expect(splitReply(text)).toEqual([text]);
    expect(splitReply(`${text}!`)).toHaveLength(2);
  });

  test("paragraphs are kept whole where they fit, and every chunk is ≤ 2,000 code points", () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}. ${"word ".repeat(80).trim()}`);
    const chunks = splitReply(paragraphs.join("\n\n"));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(codepoints(chunk)).toBeLessThanOrEqual(MAX_CODEPOINTS);
      expect(chunk).toMatch(/^Paragraph \d+\./);
      expect(chunk).toMatch(/word$/);
    }
    expect(chunks.join("\n\n")).toBe(paragraphs.join("\n\n"));
  });

  test("a code block cut in two is closed and reopened with its language", () => {
    const code = Array.from({ length: 120 }, (_, i) => `let v${i} = ${i}; // ${"z".repeat(20)}`).join("\n");
    const chunks = splitReply(`Here:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(codepoints(chunk)).toBeLessThanOrEqual(MAX_CODEPOINTS);
      expect((chunk.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(chunks[1]).toStartWith("```ts\n");
    expect(chunks.at(-1)).toEndWith("Done.");
  });

  test("one endless line of emoji is cut hard between code points, never inside a surrogate pair", () => {
    const chunks = splitReply("🎉".repeat(4500));
    expect(chunks.map(codepoints)).toEqual([2000 - 16, 2000 - 16, 4500 - 2 * (2000 - 16)]);
    for (const chunk of chunks) expect(chunk).toBe("🎉".repeat(codepoints(chunk)));
  });

  test("unitsFor counts UTF-16 units of the first n code points", () => {
    expect(unitsFor("a😀b", 2)).toBe(3);
    expect(unitsFor("ab", 5)).toBe(2);
  });
});
