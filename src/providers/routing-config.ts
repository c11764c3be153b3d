import type { Env } from "../config/env.ts";
import { ConfigInvalid } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import type { SecretDeps } from "../config/secrets.ts";
import { findProvider } from "./descriptors.ts";
import { resolveEffort } from "./effort.ts";
import { isMisPaired } from "./model-catalog.ts";
import { type Route, resolveRoutes } from "./routes.ts";

/**
 * [fermix_core.routing] checked when the config is loaded: a subagent/cron provider must exist, and a
 * model must not belong to a different provider than the one it is paired with.
 */
export function validateRouting(config: Config, file: string): void {
  const routing = config.fermix_core?.routing;
  if (!routing) return;
  for (const role of ["subagent", "cron"] as const) {
    const provider = routing[`${role}_provider`];
    const model = routing[`${role}_model`];
    if (provider && !findProvider(provider)) {
      throw ConfigInvalid(`${file}: [fermix_core.routing] ${role}_provider: unknown provider "${provider}"`, {
        file,
        section: "fermix_core.routing",
        key: `${role}_provider`,
      });
    }
    const primary = provider ?? primaryOf(config);
    if (model && primary && isMisPaired(primary, model)) {
      throw ConfigInvalid(
        `${file}: [fermix_core.routing] ${role}_model: "${model}" is not a ${primary} model; set ${role}_provider to the provider that serves it, or pick a ${primary} model`,
        { file, section: "fermix_core.routing", key: `${role}_model` },
      );
    }
  }
}

/**
 * Routes for subagents: the main chain unless [fermix_core.routing] says otherwise. A model without a
 * provider runs on the primary; an explicit provider leads the chain with its own model.
 */
export function subagentRoutes(config: Config, env: Env, secrets: SecretDeps): Route[] {
  return roleRoutes("subagent", config, env, secrets);
}

/** Routes for an unpinned scheduled run: [fermix_core.routing] cron_*, else the chain as config.toml says now. */
export function cronRoutes(config: Config, env: Env, secrets: SecretDeps): Route[] {
  return roleRoutes("cron", config, env, secrets);
}

function roleRoutes(role: "subagent" | "cron", config: Config, env: Env, secrets: SecretDeps): Route[] {
  const routing = config.fermix_core?.routing;
  const routes = resolveRoutes(config, env, secrets, {
    provider: routing?.[`${role}_provider`],
    model: routing?.[`${role}_model`],
  });
  const effort = routing?.[`${role}_reasoning_effort`];
  if (!effort) return routes;
  const [first, ...rest] = routes;
  return first ? [{ ...first, effort: resolveEffort(first.descriptor, first.model, effort) }, ...rest] : routes;
}

function primaryOf(config: Config): string | undefined {
  const blocks = config.fermix_core?.providers ?? {};
  const entries = Object.entries(blocks) as Array<[string, { primary?: boolean } | undefined]>;
  return entries.find(([, b]) => b?.primary)?.[0] ?? (entries.length === 1 ? entries[0]![0] : undefined);
}
