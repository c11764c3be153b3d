import { describe, expect, test } from "bun:test";
import {
  anthropicHasOutputFormat,
  anthropicSchema,
  isStrictCompatible,
} from "../../src/providers/structured-output.ts";

describe("structured output helpers", () => {
  test("strict only for schemas whose every object is closed with all properties required", () => {
    const closed = {
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      additionalProperties: false,
    };
    expect(isStrictCompatible(closed)).toBe(true);
    expect(isStrictCompatible({ ...closed, required: [] })).toBe(false);
    expect(isStrictCompatible({ ...closed, additionalProperties: undefined })).toBe(false);
    const nested = { ...closed, properties: { a: { type: "array", items: { type: "object", properties: {} } } } };
    expect(isStrictCompatible(nested)).toBe(false);
    // enum and const values are data, not schemas.
    expect(isStrictCompatible({ ...closed, properties: { a: { const: { type: "object" } } } })).toBe(true);
  });

  test("Anthropic's view: objects closed, oneOf as anyOf, unsupported constraints told in the description", () => {
    expect(
      anthropicSchema({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          n: { type: "integer", minimum: 1, description: "count" },
          v: { oneOf: [{ type: "string" }, { type: "object", properties: {} }] },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        n: { type: "integer", description: "count\n\n{minimum: 1}" },
        v: { anyOf: [{ type: "string" }, { type: "object", properties: {}, additionalProperties: false }] },
      },
      additionalProperties: false,
    });
  });

  test("which Claude models have output_config.format", () => {
    for (const m of ["claude-sonnet-4-6", "claude-opus-4-5", "claude-haiku-4-5", "claude-opus-4-1", "claude-sonnet-5"])
      expect(anthropicHasOutputFormat(m)).toBe(true);
    for (const m of ["claude-3-5-haiku-latest", "claude-sonnet-4-0", "claude-opus-4-20250514"])
      expect(anthropicHasOutputFormat(m)).toBe(false);
  });
});
