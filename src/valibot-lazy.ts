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
  return v.lazy(builtOnce(build));
}

/**
 * A schema piece that several lazily built schemas share, built the first time one of them asks for it. Unlike a
 * lazySchema it is the plain schema once built, so a JSON Schema conversion sees it inline (never a `$ref`).
 *
 * @example
 * const JobId = builtOnce(() => v.pipe(v.string(), v.description("the job's id")));
 * export const JobArgs = lazySchema(() => v.object({ job_id: JobId() }));
 */
export function builtOnce<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}

/** The schema inside a lazySchema, built now: for reading its shape (a strict object's keys). */
export function builtSchema<T extends v.GenericSchema>(schema: v.LazySchema<T>): T {
  return schema.getter(undefined);
}

/** `schema` itself, or the schema a lazySchema builds: what a converter or a fingerprint reads in its place. */
export function withoutLazy(schema: v.GenericSchema): v.GenericSchema {
  return schema.type === "lazy" ? (schema as v.LazySchema<v.GenericSchema>).getter(undefined) : schema;
}
