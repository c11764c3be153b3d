import { describe, expect, test } from "bun:test";
import { SIGNAL_BODY_BYTES, signalChunks } from "../../../src/channels/signal/reply-chunks.ts";

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe("signalChunks", () => {
  test("a short text is one message", () => {
    expect(signalChunks("  hello  ")).toEqual(["hello"]);
    expect(signalChunks("")).toEqual([]);
  });

  test("text beyond ASCII is cut by UTF-8 bytes, at paragraph boundaries, nothing lost", () => {
    const paragraphs = Array.from(
      { length: 20 },
      (_, i) => `Absatz ${i}: ${"Grüße, 😀 naïve café ".repeat(15).trim()}`,
    );
    const text = paragraphs.join("\n\n");
    const chunks = signalChunks(text);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(bytes(chunk)).toBeLessThanOrEqual(SIGNAL_BODY_BYTES);
    expect(chunks.join("\n\n")).toBe(text);
    // Cut between paragraphs, not inside one.
    for (const chunk of chunks) expect(chunk).toMatch(/^Absatz \d+: /);
  });

  test("one long word is cut hard, and never inside an emoji's surrogate pair", () => {
    const chunks = signalChunks("😀".repeat(1200));
    for (const chunk of chunks) {
      expect(bytes(chunk)).toBeLessThanOrEqual(SIGNAL_BODY_BYTES);
      expect(chunk).toBe("😀".repeat(chunk.length / 2));
    }
    expect(chunks.join("")).toBe("😀".repeat(1200));
  });
});
