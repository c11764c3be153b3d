import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

const PerMtok = (what: string) =>
  v.pipe(
    v.number(`${what}: a number of US dollars per million tokens`),
    v.minValue(0, `${what}: a price of 0 or more US dollars per million tokens`),
  );

/**
 * [fermix_core.pricing."<provider>/<model>"]: a price that overrides the built-in list (usage/prices.ts) for one
 * exact model id, e.g. `[fermix_core.pricing."openai/gpt-5.5"]`. The cached-input price defaults to the input price
 * when a vendor has no cache discount.
 */
export const ModelPrice = lazySchema(() =>
  v.strictObject({
    input_per_mtok: PerMtok("input_per_mtok"),
    cached_input_per_mtok: v.optional(PerMtok("cached_input_per_mtok")),
    output_per_mtok: PerMtok("output_per_mtok"),
  }),
);
export type ModelPrice = v.InferOutput<typeof ModelPrice>;

export const PricingSection = lazySchema(() =>
  v.record(
    v.pipe(
      v.string(),
      v.regex(/^[a-z0-9_]+\/\S+$/, 'a quoted "<provider>/<model>" key, e.g. [fermix_core.pricing."openai/gpt-5.5"]'),
    ),
    ModelPrice,
  ),
);
export type PricingSection = v.InferOutput<typeof PricingSection>;
