import { describe, expect, test } from "bun:test";
import { serializedOnce, spliceJson } from "../../../src/providers/wires/_json-body.ts";

describe("spliceJson", () => {
  test("writes the bytes JSON.stringify writes for the whole object, keys in the same order", () => {
    const raw = [{ name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }];
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ model: "m", instructions: 'say "hi" ✓\n', input: [{ role: "user" }], stream: true }, {}],
      [
        { model: "m", instructions: undefined },
        { reasoning: { effort: "low", summary: "auto" }, max_output_tokens: 9 },
      ],
      [{}, { text: { format: { type: "json_schema" } } }],
      [{}, {}],
    ];
    for (const [head, tail] of cases) {
      const whole = JSON.stringify({ ...head, tools: raw, ...tail });
      expect(spliceJson(head, "tools", JSON.stringify(raw), tail).text).toBe(whole);
    }
  });
});

describe("serializedOnce", () => {
  test("serializes an owner once while its parts are the same values, afresh when one changes", () => {
    const cache = new WeakMap<object, { parts: readonly unknown[]; json: string }>();
    const spec = { name: "a", parameters: { type: "object" } };
    let calls = 0;
    const json = () =>
      serializedOnce(cache, spec, [spec.name, spec.parameters], () => {
        calls++;
        return spec;
      });
    expect(json()).toBe(JSON.stringify(spec));
    expect(json()).toBe(JSON.stringify(spec));
    expect(calls).toBe(1);
    spec.parameters = { type: "string" };
    expect(json()).toBe(JSON.stringify(spec));
    expect(calls).toBe(2);
  });
});
