import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

const Usd = lazySchema(() =>
  v.pipe(v.number("a number of US dollars"), v.gtValue(0, "a number of US dollars above 0")),
);

/**
 * [fermix_core.budget]: what the owner lets the agent spend, in USD, per day and per calendar month of the owner's
 * time zone ([fermix_core.personalization] timezone). Read live: a raised limit applies to the next turn.
 */
export const BudgetSection = lazySchema(() =>
  v.strictObject({
    daily_usd: v.optional(Usd),
    monthly_usd: v.optional(Usd),
  }),
);
export type BudgetSection = v.InferOutput<typeof BudgetSection>;
