import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";
import type { SecretDeps } from "../config/secrets.ts";
import { findProvider, PROVIDERS } from "./descriptors.ts";
import { resolveEffort } from "./effort.ts";
import { isMisPaired, providerOfModel } from "./model-catalog.ts";
import { type Route, type RouteChoice, resolveRoutes } from "./routes.ts";
import { RoutingRefused } from "./routing-edit.ts";

/**
 * Routes for one subagents call that names its own model and/or provider (spec: self-knowledge.md, "a one-shot
 * model to the subagents tool for a single call"). Checked the way [fermix_core.routing] is: the provider must be
 * one fermix knows and the owner configured, and a model another provider serves is refused unless `provider`
 * names that provider; a model without a provider runs on the primary. [fermix_core.routing]'s sub-agent effort
 * still applies. Throws RoutingRefused (key "provider" or "model") with what to pass instead; nothing is saved.
 */
export function oneShotSubagentRoutes(config: Config, env: Env, secrets: SecretDeps, choice: RouteChoice): Route[] {
  const provider = choice.provider?.trim() || undefined;
  const model = choice.model?.trim() || undefined;
  const blocks = (config.fermix_core?.providers ?? {}) as Record<string, unknown>;
  const configured = PROVIDERS.map((p) => p.id).filter((id) => blocks[id] !== undefined);
  if (provider) {
    if (!findProvider(provider)) {
      throw RoutingRefused(
        `provider: "${provider}" is not a provider fermix knows (known: ${PROVIDERS.map((p) => p.id).join(", ")})`,
        { key: "provider" },
      );
    }
    if (configured.length && !configured.includes(provider)) {
      throw RoutingRefused(
        `provider: ${provider} is not configured here (configured: ${configured.join(", ")}); pass one of those, or leave provider out to use the primary. The owner can set ${provider} up with: fermix setup --provider ${provider}`,
        { key: "provider" },
      );
    }
  }
  const routes = resolveRoutes(config, env, secrets, { provider, model });
  const first = routes[0];
  if (!first) return routes;
  if (model && isMisPaired(first.descriptor.id, model)) {
    const servers = configured.filter((id) => !isMisPaired(id, model));
    const owner = providerOfModel(model);
    const fix = servers.length
      ? `pass provider: "${servers[0]}" with it, or pick a model ${first.descriptor.id} serves`
      : `no configured provider serves it${owner ? ` (it is ${owner}'s)` : ""}; pick a model ${first.descriptor.id} serves`;
    throw RoutingRefused(
      `model: "${model}" is not served by ${first.descriptor.id}${provider ? "" : " (a model without a provider runs on the primary)"}; ${fix}`,
      { key: "model" },
    );
  }
  const effort = config.fermix_core?.routing?.subagent_reasoning_effort;
  if (!effort) return routes;
  return [{ ...first, effort: resolveEffort(first.descriptor, first.model, effort) }, ...routes.slice(1)];
}
