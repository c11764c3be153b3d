import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

/** The Realtime providers the voice companion speaks to: OpenAI's only (spec: self-knowledge.md, "Voice"). */
export const REALTIME_PROVIDERS = ["openai"] as const;
/** The model `fermix voice status` reports when config.toml names none. */
export const REALTIME_DEFAULT_MODEL = "gpt-realtime";

/**
 * [fermix_core.realtime]: the macOS voice companion (FermixPet) over $FERMIX_HOME/realtime.sock, off by default.
 * Declared so a config written for it loads; this build has no companion bridge, which `fermix voice status` and
 * `fermix doctor` say.
 */
export const RealtimeSection = lazySchema(() =>
  v.strictObject({
    enabled: v.optional(v.boolean()),
    /** The in-call screen_share tool; `false` switches it off. */
    screen_share: v.optional(v.boolean()),
    provider: v.optional(v.picklist(REALTIME_PROVIDERS, '"openai"')),
    model: v.optional(v.pipe(v.string(), v.minLength(1, "a model name"))),
  }),
);
export type RealtimeSection = v.InferOutput<typeof RealtimeSection>;
