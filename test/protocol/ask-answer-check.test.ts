/**
 * The hand-written checks of the daemon's answer events (src/protocol/ask-answer-check.ts) against the valibot schemas
 * that define those events (src/protocol/ask-answer-schemas.ts): for every case, both accept with the same output, or
 * both refuse. A field added to a schema and not to its check (or the reverse) fails here.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { checkDone, checkError, checkNotice, checkText } from "../../src/protocol/ask-answer-check.ts";
import { AskDone, AskNotice, AskText, ErrorBody } from "../../src/protocol/ask-answer-schemas.ts";

const ODD_VALUES: unknown[] = [
  undefined,
  null,
  0,
  7.5,
  -1,
  Number.NaN,
  "",
  "words",
  true,
  false,
  [],
  ["a"],
  {},
  { a: 1 },
];

const usage = { input_tokens: 10, cached_input_tokens: 2, output_tokens: 5, reasoning_tokens: 0 };
const approval = { kind: "directory", path: "/home/me/src", reason: "to read it", token: "tok_1" };

type Case = {
  name: string;
  schema: v.GenericSchema;
  check: (data: unknown) => unknown;
  valid: Record<string, unknown>;
};
const CASES: Case[] = [
  { name: "text", schema: AskText, check: checkText, valid: { delta: "par" } },
  { name: "notice", schema: AskNotice, check: checkNotice, valid: { text: "allow?", approval } },
  {
    name: "done",
    schema: AskDone,
    check: checkDone,
    valid: { response: "pong", session_id: "ses_1", provider: "openai", model: "gpt-5.5", truncated: true, usage },
  },
  {
    name: "error",
    schema: ErrorBody,
    check: checkError,
    valid: { code: "busy", message: "try later", data: { n: 1 } },
  },
];

/** Every value put at every key, each key left out, keys added, nested ones too, and the whole not an object. */
function variantsOf(valid: Record<string, unknown>): unknown[] {
  const out: unknown[] = [valid, { ...valid, extra: "kept out" }, [], null, "text", 3, true];
  for (const key of Object.keys(valid)) {
    const { [key]: _, ...without } = valid;
    out.push(without);
    for (const odd of ODD_VALUES) out.push({ ...valid, [key]: odd });
    const inner = valid[key];
    if (inner && typeof inner === "object") {
      for (const innerKey of Object.keys(inner)) {
        const { [innerKey]: __, ...innerWithout } = inner as Record<string, unknown>;
        out.push({ ...valid, [key]: innerWithout });
        for (const odd of ODD_VALUES) out.push({ ...valid, [key]: { ...inner, [innerKey]: odd } });
      }
      out.push({ ...valid, [key]: { ...inner, extra: 1 } });
    }
  }
  // What a JSON answer could carry that an object literal would not: keys that name a prototype.
  out.push(JSON.parse(JSON.stringify(valid).replace(/^\{/, '{"__proto__":{"x":1},"constructor":2,')));
  if (valid.data) out.push({ ...valid, data: JSON.parse('{"__proto__":{"x":1},"prototype":3,"kept":4}') });
  return out;
}

/** The keys of a sample, or of a schema's entries (through optional), nested objects as nested shapes. */
function shapeOf(of: unknown, kind: "sample" | "schema" = "sample"): unknown {
  if (kind === "schema") {
    let schema = of as { type: string; entries?: Record<string, unknown>; wrapped?: unknown };
    while (schema.type === "optional") schema = schema.wrapped as typeof schema;
    if (schema.type !== "object") return schema.type === "record" ? "record" : "value";
    return Object.fromEntries(Object.entries(schema.entries!).map(([key, entry]) => [key, shapeOf(entry, "schema")]));
  }
  if (of === null || typeof of !== "object") return "value";
  // A record's sample (error.data) is matched by name: its keys are the sender's, not the schema's.
  return Object.fromEntries(
    Object.entries(of).map(([key, value]) => [key, key === "data" ? "record" : shapeOf(value)]),
  );
}

function outcome(run: () => unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: run() };
  } catch {
    return { ok: false };
  }
}

describe("the answer events' checks agree with their schemas", () => {
  for (const { name, schema, check, valid } of CASES) {
    test(`${name}: the sample holds every key of the schema, nested ones too`, () => {
      // So that a key added to the schema is varied below, and its check's lack of it shows.
      expect(shapeOf(valid)).toEqual(shapeOf(schema, "schema"));
    });

    test(`${name}: the same verdict and output on every variant`, () => {
      const variants = variantsOf(valid);
      expect(variants.length).toBeGreaterThan(20);
      for (const data of variants) {
        const byValibot = outcome(() => v.parse(schema, data));
        const byCheck = outcome(() => check(data));
        // The input is named when they disagree, so the failure says which case.
        expect({ data, ...byCheck }).toEqual({ data, ...byValibot });
      }
    });
  }

  test("a valid answer reads as its schema reads it, only the schema's keys kept", () => {
    expect(checkDone({ ...CASES[2]!.valid, extra: 1 })).toEqual(v.parse(AskDone, CASES[2]!.valid));
    expect(checkError({ code: "x", message: "y" })).toEqual({ code: "x", message: "y", data: {} });
  });
});

describe("a malformed answer", () => {
  test("names the event and field at fault, as a protocol error that says what to check", () => {
    const bad = { response: "pong", session_id: "ses_1", provider: "openai", model: "gpt-5.5", usage: { ...usage } };
    bad.usage.input_tokens = "ten" as unknown as number;
    expect(() => checkDone(bad)).toThrow(
      "the daemon's answer is malformed (done.usage.input_tokens is not a number); is it another fermix version? `fermix status` shows its version, `fermix restart` runs this one",
    );
    try {
      checkText({ delta: 3 });
    } catch (err) {
      expect((err as { code: string }).code).toBe("protocol_error");
      expect((err as Error).message).toContain("(text.delta is not a string)");
    }
    expect(() => checkNotice({ text: "t", approval: { kind: "k" } })).toThrow("notice.approval.path is not a string");
    expect(() => checkError(null)).toThrow("(error is not an object)");
  });
});
