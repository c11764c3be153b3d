import { describe, expect, test } from "bun:test";
import { conciseSchema, multiSchema } from "../../src/schema/concise.ts";
import { compileSchema } from "../../src/schema/validator.ts";

describe("the concise schema form (llm's)", () => {
  test("comma-separated fields, str by default, every field required, objects closed", () => {
    expect(conciseSchema("name, age int, score float, ok bool, bio: a short bio")).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        age: { type: "integer" },
        score: { type: "number" },
        ok: { type: "boolean" },
        bio: { type: "string", description: "a short bio" },
      },
      required: ["name", "age", "score", "ok", "bio"],
      additionalProperties: false,
    });
  });

  test("newline-separated, a description may hold commas", () => {
    const schema = conciseSchema("name: the full name, as written\nage int\n");
    expect(schema.properties).toEqual({
      name: { type: "string", description: "the full name, as written" },
      age: { type: "integer" },
    });
  });

  test.each([
    ["name, age integer", 'field "age" has the unknown type "integer" (use str, int, float or bool)'],
    ["first name int", '"first name int" is not a field'],
    ["name, name", 'the field "name" is named twice'],
    [" , ", "the concise schema names no fields"],
    ["person.json", '"person.json" is not a field'],
  ])("%p is refused: %s", (text, message) => {
    expect(() => conciseSchema(text)).toThrow(message);
  });

  test("--schema-multi wraps the item schema as {items: [...]}", () => {
    const item = conciseSchema("name");
    expect(multiSchema(item)).toEqual({
      type: "object",
      properties: { items: { type: "array", items: item } },
      required: ["items"],
      additionalProperties: false,
    });
  });
});

describe("the validator", () => {
  test("names each failing path as a JSON Pointer", async () => {
    const check = await compileSchema(conciseSchema("name, age int"));
    expect(check({ name: "Ada", age: 36 })).toEqual([]);
    expect(check({ name: "Ada", age: "old" })).toEqual([{ path: "/age", message: "must be integer" }]);
    expect(check({ name: "Ada", age: 1, extra: true })).toEqual([
      { path: "/", message: 'must NOT have additional properties ("extra")' },
    ]);
  });

  test("a schema that is not JSON Schema is refused; a 2020-12 one is read in its dialect", async () => {
    await expect(compileSchema({ type: "strin" })).rejects.toThrow("not a valid JSON Schema");
    const check = await compileSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] } },
    });
    expect(check({ pair: ["a", "b"] })).toEqual([{ path: "/pair/1", message: "must be integer" }]);
  });
});
