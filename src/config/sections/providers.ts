import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { HttpUrl } from "./_http-url.ts";
import { SecretRef } from "./secret-ref.ts";

/** Lowest to highest: the order is the rank providers/effort.ts clamps by. */
export const EFFORTS = ["none", "low", "medium", "high", "xhigh", "max"] as const;
export const Effort = lazySchema(() => v.picklist(EFFORTS));
export type Effort = v.InferOutput<typeof Effort>;

const providerBase = () => ({
  primary: v.optional(v.boolean()),
  default_model: v.optional(v.pipe(v.string(), v.minLength(1))),
  base_url: v.optional(HttpUrl),
});
const keyed = () => ({ ...providerBase(), api_key: v.optional(SecretRef) });
const effortCapable = () => ({ ...keyed(), reasoning_effort: v.optional(Effort) });
const AuthMode = lazySchema(() => v.picklist(["api_key", "oauth"]));

/** [fermix_core.providers.<name>]. OpenRouter, Mistral and Ollama have no effort knob, so their blocks reject reasoning_effort. */
export const ProvidersSection = lazySchema(() =>
  v.strictObject({
    // Signed in with `fermix auth login --provider codex`: no api_key; `fast` asks for priority processing.
    openai_codex: v.optional(
      v.strictObject({ ...providerBase(), reasoning_effort: v.optional(Effort), fast: v.optional(v.boolean()) }),
    ),
    openai: v.optional(v.strictObject({ ...effortCapable(), auth_mode: v.optional(v.literal("api_key")) })),
    anthropic: v.optional(v.strictObject({ ...effortCapable(), auth_mode: v.optional(AuthMode) })),
    xai: v.optional(v.strictObject({ ...effortCapable(), auth_mode: v.optional(AuthMode) })),
    openrouter: v.optional(v.strictObject(keyed())),
    mistral: v.optional(v.strictObject(keyed())),
    ollama: v.optional(v.strictObject(providerBase())),
  }),
);
export type ProvidersSection = v.InferOutput<typeof ProvidersSection>;

/** Any one provider's block, read without knowing which: the union of every block's keys. */
export type ProviderBlock = {
  primary?: boolean;
  default_model?: string;
  base_url?: string;
  api_key?: SecretRef;
  reasoning_effort?: Effort;
  auth_mode?: string;
  fast?: boolean;
};

/** [fermix_core.routing]: the model subagents and scheduled jobs run on, when not the primary's. */
export const RoutingSection = lazySchema(() =>
  v.strictObject({
    subagent_model: v.optional(v.string()),
    subagent_provider: v.optional(v.string()),
    subagent_reasoning_effort: v.optional(Effort),
    cron_model: v.optional(v.string()),
    cron_provider: v.optional(v.string()),
    cron_reasoning_effort: v.optional(Effort),
  }),
);
