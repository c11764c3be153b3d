import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { SecretRef } from "./secret-ref.ts";

/**
 * [fermix_core.observability]: the OTLP/HTTP trace exporter (off unless `otlp_enabled`) and the batching both
 * exporters share. Opik is switched by FERMIX_OPIK_* in the environment, as the spec has it.
 */
export const ObservabilitySettings = lazySchema(() =>
  v.strictObject({
    otlp_enabled: v.optional(v.boolean()),
    /** The collector's root (`/v1/traces` is added) or, ending in /v1/traces, the whole URL. */
    otlp_endpoint: v.optional(
      v.pipe(
        v.string(),
        v.url("a URL such as http://127.0.0.1:4318"),
        v.regex(/^https?:\/\//i, "a URL starting with http:// or https://"),
      ),
    ),
    /** Extra request headers (a collector's auth): each a secret ("$ENV_VAR", "@keyring", …). */
    otlp_headers: v.optional(v.record(v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]+$/, "a header name")), SecretRef)),
    batch_size: v.optional(v.pipe(v.number(), v.integer("a whole number"), v.minValue(1), v.maxValue(1000))),
    flush_interval_seconds: v.optional(v.pipe(v.number(), v.gtValue(0, "above 0"), v.maxValue(300))),
    queue_limit: v.optional(v.pipe(v.number(), v.integer("a whole number"), v.minValue(1), v.maxValue(100_000))),
    timeout_seconds: v.optional(v.pipe(v.number(), v.gtValue(0, "above 0"), v.maxValue(120))),
  }),
);
export type ObservabilitySettings = v.InferOutput<typeof ObservabilitySettings>;

/** What the exporters use for a key the table leaves out, in their own units. */
export const EXPORT_DEFAULTS = {
  batchSize: 100,
  flushIntervalMs: 5_000,
  queueLimit: 2_048,
  timeoutMs: 10_000,
} as const;
