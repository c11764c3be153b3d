import { describe, expect, test } from "bun:test";
import { sanitiseToolName, toolNames } from "../../../src/plugins/mcp-rail/tool-names.ts";
import { toCallResult } from "../../../src/plugins/mcp-rail/tool-result.ts";

describe("tool names", () => {
  test("become <plugin>_<name> in [a-z0-9_]", () => {
    expect(sanitiseToolName("everything", "get-sum")).toBe("everything_get_sum");
    expect(sanitiseToolName("x", "getTinyImage")).toBe("x_get_tiny_image");
    expect(sanitiseToolName("x", "a.b/c d")).toBe("x_a_b_c_d");
    expect(sanitiseToolName("x", "--")).toBe("x_tool");
    expect(sanitiseToolName("x", "Ünïcode-Tool")).toBe("x_n_code_tool");
  });

  test("stay within 64 bytes and unique, even when names collide", () => {
    const long = "a".repeat(100);
    const names = toolNames("plugin", ["a-b", "a_b", "A-B", long, `${long}-x`]);
    expect(names.slice(0, 3)).toEqual(["plugin_a_b", "plugin_a_b_2", "plugin_a_b_3"]);
    for (const n of names) {
      expect(n).toMatch(/^[a-z0-9_]+$/);
      expect(Buffer.byteLength(n)).toBeLessThanOrEqual(64);
    }
    expect(new Set(names).size).toBe(names.length);
    expect(names[4]!.endsWith("_2")).toBe(true);
  });
});

describe("call results", () => {
  test("join text and describe binary parts", () => {
    const result = toCallResult({
      content: [
        { type: "text", text: "before" },
        { type: "image", mimeType: "image/png", data: "AAAA" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inline text" } },
        { type: "resource", resource: { uri: "file:///b.bin", mimeType: "application/pdf", blob: "AAA=" } },
        { type: "resource_link", uri: "file:///c", name: "c" },
      ],
    });
    expect(result.content).toBe(
      "before\n[image image/png, 3 bytes]\ninline text\n[resource file:///b.bin application/pdf, 2 bytes]\n[resource c file:///c]",
    );
    expect(result.isError).toBeUndefined();
  });

  test("carry isError, and fall back to structured content", () => {
    expect(toCallResult({ content: [{ type: "text", text: "bad" }], isError: true })).toEqual({
      content: "bad",
      isError: true,
    });
    expect(toCallResult({ content: [], structuredContent: { n: 1 } })).toEqual({ content: '{"n":1}' });
  });
});
