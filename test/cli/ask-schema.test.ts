/**
 * `fermix ask --schema` / `--schema-multi` through the compiled binary, on each wire's fake: the request carries
 * the wire's structured output, stdout is the JSON alone, a wrong answer gets exactly one repair turn, and a
 * second miss exits 4 naming the failing path. A bad schema is a usage error before any request.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeLlm, startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const OPENAI_KEY = "sk-test-openai-schema-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-test-schema-0123456789abcdef";
const MISTRAL_KEY = "mistral-test-schema-0123456789abcdef";
const defer = cleanupAfterEach();

const PERSON = {
  type: "object",
  properties: {
    name: { type: "string" },
    age: { type: "integer" },
    bio: { type: "string", description: "a short bio" },
  },
  required: ["name", "age", "bio"],
  additionalProperties: false,
};
const CONCISE = "name, age int, bio: a short bio";
const ADA = { name: "Ada", age: 36, bio: "Wrote the first program." };
const WRONG = '{"name":"Ada","age":"thirty-six","bio":"x"}';

type Wire = "responses" | "chat" | "anthropic";

async function setup(wire: Wire) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  let fake: FakeLlm;
  let env: Record<string, string>;
  if (wire === "responses") {
    fake = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
    env = { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl };
  } else if (wire === "anthropic") {
    fake = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    env = { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: fake.baseUrl };
  } else {
    fake = await startFakeChatCompletions({ apiKey: MISTRAL_KEY, flavor: "mistral" });
    h.writeConfig(`[fermix_core.providers.mistral]\nbase_url = "${fake.baseUrl}"\n`);
    env = { MISTRAL_API_KEY: MISTRAL_KEY };
  }
  defer(() => fake.close());
  return { h, fake, env: { FERMIX_HOME: h.home, HOME: h.userHome, ...env } };
}

/** The schema a request carried, in that wire's own field. */
function sentSchema(wire: Wire, body: any): unknown {
  if (wire === "responses") return body.text.format.schema;
  if (wire === "chat") return body.response_format.json_schema.schema;
  return body.output_config.format.schema;
}

describe("ask --schema", () => {
  test("-u and --json count the answer and its repair turn together; --extract is refused", async () => {
    const { fake, env } = await setup("responses");
    const usage = { input: 100, cached: 40, output: 10, reasoning: 2 };
    fake.enqueue({ kind: "text", text: WRONG, usage }, { kind: "text", text: JSON.stringify(ADA), usage });
    const r = await runFermix(["ask", "-u", "--schema", CONCISE, "who?"], { env });
    expect(r).toEqual({
      code: 0,
      stdout: `${JSON.stringify(ADA)}\n`,
      stderr: "usage: 200 input (80 cached), 20 output (4 reasoning) tokens\n",
    });
    fake.setDefault({ kind: "text", text: JSON.stringify(ADA), usage });
    const j = await runFermix(["ask", "--json", "--schema", CONCISE, "who?"], { env });
    expect(JSON.parse(j.stdout).usage).toEqual({
      input_tokens: 100,
      cached_input_tokens: 40,
      output_tokens: 10,
      reasoning_tokens: 2,
    });
    const seen = fake.requests.length;
    const x = await runFermix(["ask", "-x", "--schema", CONCISE, "who?"], { env });
    expect(x.code).toBe(2);
    expect(x.stderr).toContain("--schema prints the JSON alone");
    expect(fake.requests).toHaveLength(seen);
  });

  test.each(["responses", "chat", "anthropic"] as const)(
    "%s: an inline JSON Schema rides the wire's structured output; stdout is the JSON alone",
    async (wire) => {
      const { fake, env } = await setup(wire);
      fake.setDefault({ kind: "text", text: JSON.stringify(ADA) });
      const r = await runFermix(["ask", "--schema", JSON.stringify(PERSON), "who wrote the first program?"], { env });
      expect(r).toEqual({ code: 0, stdout: `${JSON.stringify(ADA)}\n`, stderr: "" });
      expect(fake.requests).toHaveLength(1);
      expect(sentSchema(wire, fake.requests[0]!.body)).toEqual(PERSON);
      if (wire === "responses") expect(fake.requests[0]!.body.text.format).toMatchObject({ strict: true });
      if (wire === "chat") expect(fake.requests[0]!.body.response_format.type).toBe("json_schema");
    },
  );

  test.each(["responses", "chat", "anthropic"] as const)("%s: the concise form sends the same schema", async (wire) => {
    const { fake, env } = await setup(wire);
    fake.setDefault({ kind: "text", text: JSON.stringify(ADA) });
    const r = await runFermix(["ask", "--no-daemon", "--schema", CONCISE, "who?"], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(ADA);
    expect(sentSchema(wire, fake.requests[0]!.body)).toEqual(PERSON);
  });

  test.each(["responses", "chat", "anthropic"] as const)(
    "%s: an answer that never validates gets one repair request, then exit 4 naming the path",
    async (wire) => {
      const { fake, env } = await setup(wire);
      fake.setDefault({ kind: "text", text: WRONG });
      const r = await runFermix(["ask", "--schema", CONCISE, "who?"], { env });
      expect(r).toEqual({
        code: 4,
        stdout: "",
        stderr: "fermix: the answer does not match the schema: /age: must be integer\n",
      });
      expect(fake.requests).toHaveLength(2);
      const repair = JSON.stringify(fake.requests[1]!.body);
      expect(repair).toContain("/age: must be integer");
      // The same session: the first answer is in the history the repair request carries.
      expect(repair).toContain("thirty-six");
      expect(sentSchema(wire, fake.requests[1]!.body)).toEqual(PERSON);
    },
  );

  test("a repaired answer is printed, after exactly one repair request", async () => {
    const { fake, env } = await setup("responses");
    fake.enqueue({ kind: "text", text: "Sure! Here it is." }, { kind: "text", text: JSON.stringify(ADA) });
    const r = await runFermix(["ask", "--json", "--schema", CONCISE, "who?"], { env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: "ok", session_id: expect.stringMatching(/^ses_/) });
    expect(JSON.parse(out.response)).toEqual(ADA);
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1]!.body.input)).toContain("the answer is not JSON");
  });

  test("a schema file is read; an older Claude answers through the forced tool", async () => {
    const { h, fake, env } = await setup("anthropic");
    const file = join(h.userHome, "person.json");
    writeFileSync(file, JSON.stringify(PERSON));
    fake.setDefault({ kind: "tool_calls", calls: [{ name: "structured_answer", arguments: ADA }] });
    const r = await runFermix(["ask", "--model", "claude-3-5-haiku-latest", "--schema", file, "who?"], { env });
    expect(r).toEqual({ code: 0, stdout: `${JSON.stringify(ADA)}\n`, stderr: "" });
    expect(fake.requests[0]!.body.tool_choice).toEqual({ type: "tool", name: "structured_answer" });
  });

  test("an invalid schema is a usage error naming the problem, before any request", async () => {
    const { fake, env } = await setup("responses");
    const cases: Array<[string, string]> = [
      ["name, age integer", 'field "age" has the unknown type "integer"'],
      ['{"type": "object", "properties": {"a": {"type": "strin"}}}', "not a valid JSON Schema: data/properties/a/type"],
      ['{"type": "object",', "not valid JSON"],
      ['{"type": "array", "items": {"type": "string"}}', "the top level must be an object schema"],
    ];
    for (const [schema, problem] of cases) {
      const r = await runFermix(["ask", "--schema", schema, "who?"], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toStartWith("fermix: ask: --schema: ");
      expect(r.stderr).toContain(problem);
    }
    expect(fake.requests).toHaveLength(0);
  });
});

describe("ask --schema-multi", () => {
  test("asks for and prints {items: [...]}", async () => {
    const { fake, env } = await setup("responses");
    const items = { items: [ADA, { name: "Grace", age: 85, bio: "COBOL." }] };
    fake.setDefault({ kind: "text", text: JSON.stringify(items) });
    const r = await runFermix(["ask", "--schema-multi", CONCISE, "two programmers"], { env });
    expect(r).toEqual({ code: 0, stdout: `${JSON.stringify(items)}\n`, stderr: "" });
    expect(fake.requests[0]!.body.text.format.schema).toEqual({
      type: "object",
      properties: { items: { type: "array", items: PERSON } },
      required: ["items"],
      additionalProperties: false,
    });
  });

  test("--schema and --schema-multi together are a usage error", async () => {
    const { env } = await setup("responses");
    const r = await runFermix(["ask", "--schema", "a", "--schema-multi", "b", "hi"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("give --schema or --schema-multi, not both");
  });
});
