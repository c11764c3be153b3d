import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";
import type { SecretDeps } from "../config/secrets.ts";
import type { ProviderBlock } from "../config/sections/providers.ts";
import { isFermixError } from "../error.ts";
import { PROVIDERS, type ProviderDescriptor } from "../providers/descriptors.ts";
import { probeProvider } from "../providers/probe.ts";
import { resolveRoutes } from "../providers/routes.ts";
import { type DoctorContext, type DoctorRow, defineCheck, skippedForConfig } from "./check.ts";

/**
 * The provider chain (primary, then fallbacks) and one probe per configured provider, each resolved
 * exactly as a turn resolves it — same blocks, env vars, base URLs and secret sources — so a row that
 * says ok means a turn on that provider would get past authentication.
 */
export const providersCheck = defineCheck({
  id: "providers",
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig("providers", "providers")];
    const config = ctx.config;
    const ids = configuredProviders(config, ctx.env).map((d) => d.id);
    if (!ids.length) {
      return [
        {
          id: "providers",
          title: "providers",
          status: "fail",
          detail: "no model provider is configured",
          fix: "run fermix setup, or export a key such as OPENAI_API_KEY (or OLLAMA_BASE_URL for a local Ollama)",
        },
      ];
    }
    const secrets = secretDeps(ctx);
    const primary = primaryOf(config, ids);
    const rows: DoctorRow[] = [chainRow(config, ids, primary, ctx.env, secrets)];
    const probes = ids.map((id) => probeRow(ctx, config, secrets, id, id === primary ? "primary" : "fallback"));
    rows.push(...(await Promise.all(probes)));
    return rows;
  },
});

function chainRow(config: Config, ids: string[], primary: string, env: Env, secrets: SecretDeps): DoctorRow {
  try {
    resolveRoutes(config, env, secrets);
  } catch (err) {
    // Only the chain's own shape is reported here (two primaries); a broken provider gets its own row below.
    if (isFermixError(err) && /more than one provider primary/.test(err.message)) {
      return { id: "providers", title: "providers", status: "fail", detail: err.message, fix: "run fermix setup" };
    }
  }
  // In the order a failing turn tries them (the catalog's order; Ollama last).
  const fallbacks = ids.filter((id) => id !== primary);
  return {
    id: "providers",
    title: "providers",
    status: "ok",
    detail: `primary ${primary}; ${fallbacks.length ? `fallbacks in order: ${fallbacks.join(" → ")}` : "no fallbacks"}`,
  };
}

async function probeRow(
  ctx: DoctorContext,
  config: Config,
  secrets: SecretDeps,
  id: string,
  role: "primary" | "fallback",
): Promise<DoctorRow> {
  const row = { id: `providers.${id}`, title: "providers" };
  let route: ReturnType<typeof resolveRoutes>[number] | undefined;
  try {
    route = resolveRoutes(config, ctx.env, secrets, { provider: id })[0];
  } catch (err) {
    // Missing key, unreadable @keyring entry, unsupported auth mode: the message names the slot, never a value.
    const message = err instanceof Error ? err.message : String(err);
    return { ...row, status: "fail", detail: `${id} (${role}): ${message}`, fix: "run fermix setup" };
  }
  if (!route) return { ...row, status: "fail", detail: `${id} (${role}): could not be resolved` };
  const probe = await probeProvider(route, { fetch: ctx.fetch, timeoutMs: ctx.probeTimeoutMs });
  return {
    ...row,
    status: probe.status,
    detail: `${id} (${role}): ${probe.detail}`,
    ...(probe.fix ? { fix: probe.fix } : {}),
  };
}

/** resolveRoutes' candidate rule: provider blocks in config.toml decide; with none, env credentials do. */
function configuredProviders(config: Config, env: Env): ProviderDescriptor[] {
  const blocks = (config.fermix_core?.providers ?? {}) as Record<string, ProviderBlock | undefined>;
  const fromConfig = PROVIDERS.filter((d) => blocks[d.id]);
  if (fromConfig.length) return fromConfig;
  return PROVIDERS.filter((d) =>
    d.keyless ? Boolean(d.env.baseUrl && env[d.env.baseUrl]) : Boolean(d.env.apiKey && env[d.env.apiKey]),
  );
}

function primaryOf(config: Config, ids: string[]): string {
  const blocks = (config.fermix_core?.providers ?? {}) as Record<string, ProviderBlock | undefined>;
  return ids.find((id) => blocks[id]?.primary === true) ?? ids[0]!;
}

/**
 * Secrets resolve as the daemon resolves them. A `command` or keyring secret is looked up once even though
 * each provider's resolution walks the whole chain (a password manager should not prompt seven times).
 */
function secretDeps(ctx: DoctorContext): SecretDeps {
  const seen = new Map<string, { ok: boolean; stdout: string }>();
  return {
    env: ctx.env,
    secretsDir: ctx.paths.secrets,
    profile: ctx.config?.fermix_core?.profile,
    platform: ctx.platform,
    run: (argv) => {
      const key = argv.join("\0");
      const known = seen.get(key);
      if (known) return known;
      const result = ctx.run(argv);
      seen.set(key, result);
      return result;
    },
  };
}
