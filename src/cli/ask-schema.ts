import { existsSync, readFileSync, statSync } from "node:fs";
import { defineError } from "../error.ts";
import type { AskDone, AskRequest } from "../protocol/schemas.ts";
import { conciseSchema, type JsonSchema, multiSchema } from "../schema/concise.ts";
import type { SchemaProblem } from "../schema/validator.ts";
import { addUsage, NO_USAGE } from "./_ask-usage.ts";
import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";

/** The answer still misses the schema after its one repair: exit 4, the failing paths on stderr. */
export const SchemaMismatch = defineError("schema_mismatch");

/**
 * The JSON Schema `--schema` or `--schema-multi` stands for, checked by the validator before any request is
 * sent; undefined when neither is given. A value that starts with `{` is inline JSON, an existing file is
 * read (JSON, or the concise form), anything else is the concise form.
 */
export async function schemaFromArgs(args: ParsedArgs): Promise<JsonSchema | undefined> {
  const single = args.schema as string | undefined;
  const multi = args["schema-multi"] as string | undefined;
  if (single !== undefined && multi !== undefined) throw UsageError("ask: give --schema or --schema-multi, not both");
  const given = single ?? multi;
  if (given === undefined) return undefined;
  const flag = single !== undefined ? "--schema" : "--schema-multi";
  let schema: JsonSchema;
  try {
    const item = readSchema(given);
    if (item.type !== "object") {
      throw UsageError('the top level must be an object schema ("type": "object"); for a list, use --schema-multi');
    }
    schema = multi !== undefined ? multiSchema(item) : item;
    const { compileSchema } = await import("../schema/validator.ts");
    await compileSchema(schema);
  } catch (err) {
    throw UsageError(`ask: ${flag}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return schema;
}

function readSchema(value: string): JsonSchema {
  const text = value.trim();
  if (text.startsWith("{")) return parseJsonSchema(text, "not valid JSON");
  if (!text.includes("\n") && existsSync(text) && statSync(text).isFile()) {
    const content = readFileSync(text, "utf8").trim();
    return content.startsWith("{") ? parseJsonSchema(content, `${text} is not valid JSON`) : conciseSchema(content);
  }
  return conciseSchema(text);
}

function parseJsonSchema(text: string, what: string): JsonSchema {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw UsageError(`${what} (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw UsageError(`${what}: a JSON Schema is an object`);
  }
  return parsed as JsonSchema;
}

type Deliver = (request: AskRequest) => Promise<AskDone>;

/**
 * Asks with the schema attached (the provider's structured output shapes the answer) and validates the answer
 * here. One that does not match gets one repair turn in the same session, told what is wrong; a second miss is
 * SchemaMismatch. stdout is the JSON alone: indented on a terminal, one line when piped; with --json, the
 * usual object whose `response` is that one line.
 */
export async function printSchemaAnswer(
  request: AskRequest & { schema: JsonSchema },
  opts: { json: boolean; pretty: boolean; deliver: Deliver },
): Promise<AskDone> {
  const { compileSchema } = await import("../schema/validator.ts");
  const check = await compileSchema(request.schema);
  let done = await opts.deliver(request);
  let outcome = judge(done.response, check);
  if (outcome.problems.length) {
    const first = done;
    done = await opts.deliver({ ...request, session_id: done.session_id, text: repairText(outcome.problems) });
    done = { ...done, usage: addUsage(first.usage, done.usage) };
    outcome = judge(done.response, check);
  }
  if (outcome.problems.length) {
    throw SchemaMismatch(`the answer does not match the schema: ${describe(outcome.problems)}`, {
      session_id: done.session_id,
    });
  }
  const line = JSON.stringify(outcome.value);
  if (opts.json) {
    const usage = done.usage ?? NO_USAGE;
    await writeOut(`${JSON.stringify({ status: "ok", response: line, session_id: done.session_id, usage })}\n`);
  } else {
    await writeOut(`${opts.pretty ? JSON.stringify(outcome.value, null, 2) : line}\n`);
  }
  return done;
}

function judge(
  answer: string,
  check: (value: unknown) => SchemaProblem[],
): { value?: unknown; problems: SchemaProblem[] } {
  let value: unknown;
  try {
    value = JSON.parse(unfenced(answer));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { problems: [{ path: "/", message: `the answer is not JSON (${why})` }] };
  }
  return { value, problems: check(value) };
}

/** Models without native structured output sometimes wrap JSON in a Markdown fence; the JSON inside is the answer. */
function unfenced(answer: string): string {
  const fenced = /^```[\w-]*\s*\n([\s\S]*?)\n?```$/.exec(answer.trim());
  return fenced ? fenced[1]! : answer;
}

const SHOWN = 5;

function describe(problems: SchemaProblem[]): string {
  const shown = problems.slice(0, SHOWN).map((p) => `${p.path}: ${p.message}`);
  const more = problems.length > SHOWN ? `; and ${problems.length - SHOWN} more` : "";
  return `${shown.join("; ")}${more}`;
}

function repairText(problems: SchemaProblem[]): string {
  const lines = problems.slice(0, 20).map((p) => `- ${p.path}: ${p.message}`);
  return [
    "Your answer does not match the required JSON Schema:",
    ...lines,
    "Reply again with only the corrected JSON: no other text, no Markdown fence.",
  ].join("\n");
}
