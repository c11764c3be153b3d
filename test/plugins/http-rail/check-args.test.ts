import { describe, expect, test } from "bun:test";
import { checkArgs } from "../../../src/plugins/http-rail/check-args.ts";

const schema = {
  type: "object",
  properties: {
    code: { type: "string", minLength: 2, maxLength: 4, pattern: "^[A-Z]+$" },
    tags: { type: "array", minItems: 1, maxItems: 2 },
    ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
  },
} as any;

const problems = (args: Record<string, unknown>) => {
  try {
    checkArgs("demo_tool", schema, args);
    return [];
  } catch (err) {
    return (err as { data: { problems: string[] } }).data.problems;
  }
};

describe("plugin tool arguments: the top-level bounds", () => {
  test("lengths, pattern, item counts and exclusive bounds, every problem at once", () => {
    expect(problems({ code: "a", tags: [], ratio: 1 })).toEqual([
      'argument "code" must be at least 2 characters (got string "a")',
      'argument "tags" must have at least 1 items (got array [])',
      'argument "ratio" must be less than 1 (got number 1)',
    ]);
    expect(problems({ code: "ABCDE", tags: [1, 2, 3], ratio: 0 })).toEqual([
      'argument "code" must be at most 4 characters (got string "ABCDE")',
      'argument "tags" must have at most 2 items (got array [1,2,3])',
      'argument "ratio" must be more than 0 (got number 0)',
    ]);
    expect(problems({ code: "ab" })).toEqual(['argument "code" must match the pattern ^[A-Z]+$ (got string "ab")']);
    expect(problems({ code: "AB", tags: ["x"], ratio: 0.5 })).toEqual([]);
  });

  test("a pattern that does not compile is not held against the caller", () => {
    expect(() =>
      checkArgs("demo_tool", { properties: { q: { type: "string", pattern: "([" } } } as any, { q: "x" }),
    ).not.toThrow();
  });
});
