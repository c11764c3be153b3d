import * as v from "valibot";
import { builtSchema, lazySchema } from "../../valibot-lazy.ts";
import { BudgetSection } from "./budget.ts";
import { ComputerUseSection } from "./computer-use.ts";
import { HarnessSection } from "./harness.ts";
import { JobsSection } from "./jobs.ts";
import { MemorySettings } from "./memory.ts";
import { ObservabilitySettings } from "./observability.ts";
import { OAuthSection, PluginSecretsSection, PluginsSection } from "./plugins.ts";
import { PricingSection } from "./pricing.ts";
import { ProvidersSection, RoutingSection } from "./providers.ts";
import { RealtimeSection } from "./realtime.ts";
import { ToolsSection } from "./tools.ts";
import { TranscriptionConfig } from "./transcription.ts";

/** [fermix_core]: the agent itself, its providers and tools; the tables without a file of their own are here. */
export const CoreSection = lazySchema(() => {
  const providerNames = Object.keys(builtSchema(ProvidersSection).entries) as (keyof ProvidersSection)[];
  return v.strictObject({
    profile: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9_-]+$/i, "a name of letters, digits, - or _"))),
    secret_store: v.optional(v.picklist(["keyring", "file"])),
    // `provider` is the legacy primary choice, read only when no provider block says primary = true (routes.ts).
    agent: v.optional(
      v.strictObject({
        name: v.optional(v.string()),
        provider: v.optional(v.picklist(providerNames, `one of ${providerNames.join(", ")}`)),
      }),
    ),
    personalization: v.optional(
      v.strictObject({
        user_name: v.optional(v.string()),
        timezone: v.optional(v.string()),
        communication_style: v.optional(v.string()),
      }),
    ),
    providers: v.optional(ProvidersSection),
    routing: v.optional(RoutingSection),
    tools: v.optional(ToolsSection),
    transcription: v.optional(TranscriptionConfig),
    harness: v.optional(HarnessSection),
    plugins: v.optional(PluginsSection),
    plugin_secrets: v.optional(PluginSecretsSection),
    oauth: v.optional(OAuthSection),
    compaction: v.optional(
      v.strictObject({
        enabled: v.optional(v.boolean()),
        threshold: v.optional(v.pipe(v.number(), v.minValue(0.1), v.maxValue(1))),
      }),
    ),
    upgrade: v.optional(
      v.strictObject({
        releases_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL to releases.json"))),
      }),
    ),
    jobs: v.optional(JobsSection),
    memory: v.optional(MemorySettings),
    observability: v.optional(ObservabilitySettings),
    realtime: v.optional(RealtimeSection),
    computer_use: v.optional(ComputerUseSection),
    pricing: v.optional(PricingSection),
    budget: v.optional(BudgetSection),
  });
});
