import { describe, expect, test } from "bun:test";
import { balanceFences, openFenceAt, splitChunks, takeChunk } from "../../src/gateway/streaming/chunk-text.ts";

const paragraph = (n: number, word = "word") => Array.from({ length: n }, () => word).join(" ");

describe("streamed text chunks", () => {
  test("text that fits is one chunk", () => {
    expect(takeChunk("short answer\n", 800, 1200)).toEqual({ chunk: "short answer", rest: "" });
  });

  test("a long text is cut at the last paragraph between min and max", () => {
    const text = [paragraph(100), paragraph(100), paragraph(100), paragraph(100)].join("\n\n"); // ~500 each
    const cut = takeChunk(text, 800, 1200);
    expect(cut.chunk).toBe([paragraph(100), paragraph(100)].join("\n\n"));
    expect(cut.rest.startsWith("word")).toBe(true);
    expect(cut.chunk.length).toBeGreaterThanOrEqual(800);
    expect(cut.chunk.length).toBeLessThanOrEqual(1200);
  });

  test("without a paragraph it takes a line, then a sentence, then a space", () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} ${paragraph(5)}`).join("\n");
    const byLine = takeChunk(lines, 800, 1200);
    expect(lines.startsWith(byLine.chunk)).toBe(true);
    expect(lines[byLine.chunk.length]).toBe("\n");

    const sentences = Array.from({ length: 100 }, (_, i) => `Sentence number ${i} ends here.`).join(" ");
    const bySentence = takeChunk(sentences, 800, 1200);
    expect(bySentence.chunk.endsWith(".")).toBe(true);
    expect(bySentence.chunk.length).toBeLessThanOrEqual(1200);

    const words = paragraph(400);
    const bySpace = takeChunk(words, 800, 1200);
    expect(bySpace.chunk.endsWith("word")).toBe(true);
    expect(bySpace.chunk.length).toBeLessThanOrEqual(1200);
  });

  test("a hard cut never splits a surrogate pair", () => {
    const text = "😀".repeat(1000); // 2,000 units, no boundary at all
    const cut = takeChunk(text, 800, 1201);
    expect(cut.chunk.length % 2).toBe(0);
    expect(cut.chunk + cut.rest).toBe(text);
  });

  test("a cut inside a code block closes the fence and the rest reopens it with its language", () => {
    const code = Array.from({ length: 200 }, (_, i) => `  const x${i} = ${i};`).join("\n");
    const text = `Here is the code:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThat is all.`;
    const chunks = splitChunks(text, 800, 1200);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(1200 + 4);
      expect(openFenceAt(chunk)).toBeUndefined();
    }
    expect(chunks[1]!.startsWith("```ts\n")).toBe(true);
    // Indentation inside the block survives the cut.
    expect(chunks[1]!.split("\n")[1]!.startsWith("  const")).toBe(true);
    expect(chunks.at(-1)!.endsWith("That is all.")).toBe(true);
  });

  test("a paragraph outside a fence is preferred to a line inside one", () => {
    const prose = paragraph(170); // ~850
    const code = `\`\`\`\n${Array.from({ length: 60 }, (_, i) => `row ${i}`).join("\n")}\n\`\`\``;
    const text = `${prose}\n\n${code}\n\nmore ${paragraph(200)}`;
    const cut = takeChunk(text, 800, 1200);
    expect(cut.chunk).toBe(prose);
    expect(cut.open).toBeUndefined();
  });

  test("a draft left open mid-block is shown with the fence closed", () => {
    expect(balanceFences("look:\n```py\nprint(1)")).toBe("look:\n```py\nprint(1)\n```");
    expect(balanceFences("done\n```\nx\n```\n")).toBe("done\n```\nx\n```\n");
    expect(balanceFences("~~~~\na\n~~~")).toBe("~~~~\na\n~~~\n~~~~");
  });
});
