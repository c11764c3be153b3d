import { defineError } from "../error.ts";
import type { JsonSchema } from "./concise.ts";

/** A schema the validator refuses (not JSON Schema): a usage error, raised before any request is sent. */
export const SchemaInvalid = defineError("usage");

/** One way an answer misses the schema, as a JSON Pointer into the answer and the validator's sentence. */
export type SchemaProblem = { path: string; message: string };

export type AnswerCheck = (value: unknown) => SchemaProblem[];

/**
 * Compiles a JSON Schema with ajv, loaded here and only here (`await import`): a plain `fermix ask` never pays
 * for it. The dialect follows `$schema` (2020-12 and 2019-09 by name; draft-07 otherwise, the one most schemas
 * are written in). Unknown keywords are allowed, as JSON Schema allows them; formats are not checked (ajv
 * knows none without ajv-formats, and the provider's own structured output already shapes them).
 */
export async function compileSchema(schema: JsonSchema): Promise<AnswerCheck> {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  const { default: Ajv } = /2020-12/.test(dialect)
    ? await import("ajv/dist/2020.js")
    : /2019-09/.test(dialect)
      ? await import("ajv/dist/2019.js")
      : await import("ajv");
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, logger: false });
  let validate: ReturnType<typeof ajv.compile>;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    // ajv words a meta-schema failure as "schema is invalid: data/properties/age/type must be equal to one of…".
    const reason = err instanceof Error ? err.message.replace(/^schema is invalid: /, "") : String(err);
    throw SchemaInvalid(`not a valid JSON Schema: ${reason}`);
  }
  return (value) => {
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => {
      const extra = typeof e.params?.additionalProperty === "string" ? ` ("${e.params.additionalProperty}")` : "";
      return { path: e.instancePath || "/", message: `${e.message ?? "does not match"}${extra}` };
    });
  };
}
