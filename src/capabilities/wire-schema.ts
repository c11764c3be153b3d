import type * as v from "valibot";

/*
 * What a tool's parameters look like on the provider wire, where that differs from what the tool accepts.
 * An argument may tolerate many spellings (a delivery target's chat_id, channel_id, recipient…) so a model's
 * slip still works, while the schema every request carries names only the one spelling to use: the
 * tolerance costs nothing on the wire, and the request stays inside its budget (issue 27: ≤ 15 KB for a ping).
 */
const advertised = new WeakMap<v.GenericSchema, Record<string, unknown>>();

/** Sends `json` in place of `schema`'s derived JSON Schema; `schema` itself still checks the arguments. */
export function advertiseAs<S extends v.GenericSchema>(schema: S, json: Record<string, unknown>): S {
  advertised.set(schema, json);
  return schema;
}

/** The wire form registered for `schema`, if any (the registry's JSON Schema conversion asks for each node). */
export function advertisedForm(schema: v.GenericSchema): Record<string, unknown> | undefined {
  return advertised.get(schema);
}
