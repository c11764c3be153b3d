import * as v from "valibot";

/**
 * A schema built the first time something is validated against it, not when its module loads (issue 31). Each
 * valibot construction costs the one-shot `fermix ask` real time on a cold process, and most schemas of a config
 * file or a tool list are never used by one: an absent config table, a tool nobody called. Validation, its output
 * and its issues are the built schema's own; only the moment it is built moves.
 *
 * @example
 * export const WebSection = lazySchema(() => v.strictObject({ port: v.optional(Port) }));
 */
export function lazySchema<T extends v.GenericSchema>(build: () => T): v.LazySchema<T> {
  let built: T | undefined;
  return v.lazy(() => {
    built ??= build();
    return built;
  });
}

/** The schema inside a lazySchema, built now: for reading its shape (a strict object's keys). */
export function builtSchema<T extends v.GenericSchema>(schema: v.LazySchema<T>): T {
  return schema.getter(undefined);
}

/** `schema` itself, or the schema a lazySchema builds: what a converter or a fingerprint reads in its place. */
export function withoutLazy(schema: v.GenericSchema): v.GenericSchema {
  return schema.type === "lazy" ? (schema as v.LazySchema<v.GenericSchema>).getter(undefined) : schema;
}
