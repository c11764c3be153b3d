import * as v from "valibot";

/**
 * The JSON object a model was asked to answer with. Models wrap JSON in prose or code fences now and then; the
 * object itself is what is validated, and a failure says where. In memory/, the base layer, because the memory
 * review here and the gateway's soul review both parse such answers.
 */
export function parseModelJson<T>(
  text: string,
  schema: v.GenericSchema<unknown, T>,
): { ok: true; value: T } | { ok: false; error: string } {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) return { ok: false, error: "no JSON object in it" };
  let json: unknown;
  try {
    json = JSON.parse(text.slice(start, end + 1));
  } catch (err) {
    return { ok: false, error: `invalid JSON (${(err as Error).message})` };
  }
  const parsed = v.safeParse(schema, json);
  if (parsed.success) return { ok: true, value: parsed.output };
  const issue = parsed.issues[0]!;
  const path = issue.path?.map((p) => String(p.key)).join(".") || "answer";
  return { ok: false, error: `${path}: ${issue.message}` };
}
