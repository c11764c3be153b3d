import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";
import { providerKeySlot } from "../config/secret-slots.ts";
import { envSecret, resolveSecret, type SecretDeps } from "../config/secrets.ts";
import type { Effort, ProviderBlock } from "../config/sections/providers.ts";
import { defineError } from "../error.ts";
import { findProvider, PROVIDERS, type ProviderDescriptor } from "./descriptors.ts";
import { resolveEffort } from "./effort.ts";
import { signInOf, type TokenSourceFactory } from "./sign-in.ts";
import type { WireTarget } from "./types.ts";

export const NoProvider = defineError("no_provider");
export const ProviderSetup = defineError<{ provider: string }>("provider_setup");
export const UnknownProvider = defineError<{ provider: string }>("unknown_provider");

/** One provider ready to be called: the router tries routes in order. */
export type Route = {
  descriptor: ProviderDescriptor;
  model: string;
  effort?: Effort;
  target: WireTarget;
};

export type RouteChoice = { provider?: string; model?: string };

type Candidate = { descriptor: ProviderDescriptor; block: ProviderBlock };

/**
 * Exactly one primary; every other configured provider is a fallback in catalog order. Provider blocks
 * in config.toml are the explicit choice; with none, any provider whose credential is in the environment
 * is used (zero-config first run).
 */
export function resolveRoutes(
  config: Config,
  env: Env,
  secrets: SecretDeps & { tokenSource?: TokenSourceFactory },
  choice: RouteChoice = {},
): Route[] {
  const blocks = (config.fermix_core?.providers ?? {}) as Record<string, ProviderBlock | undefined>;
  const fromConfig: Candidate[] = PROVIDERS.flatMap((d) =>
    blocks[d.id] ? [{ descriptor: d, block: blocks[d.id]! }] : [],
  );
  const candidates: Candidate[] = fromConfig.length
    ? fromConfig
    : PROVIDERS.filter((d) => hasEnvCredential(d, env)).map((d) => ({ descriptor: d, block: {} }));

  if (choice.provider && !findProvider(choice.provider)) {
    throw UnknownProvider(`unknown provider "${choice.provider}" (known: ${PROVIDERS.map((p) => p.id).join(", ")})`, {
      provider: choice.provider,
    });
  }
  if (!candidates.length) throw NoProvider(noProviderMessage());

  const primary = choice.provider
    ? pickChosen(candidates, choice.provider)
    : pickPrimary(candidates, config.fermix_core?.agent?.provider);
  const ordered = [primary, ...candidates.filter((c) => c !== primary)];
  const routes: Route[] = [];
  for (const candidate of ordered) {
    const isPrimary = candidate === primary;
    try {
      routes.push(buildRoute(candidate, env, secrets, isPrimary ? choice.model : undefined));
    } catch (err) {
      // A broken fallback must not block the primary; a broken primary is the user's error to see.
      if (isPrimary) throw err;
    }
  }
  return routes;
}

function pickChosen(candidates: Candidate[], id: string): Candidate {
  const found = candidates.find((c) => c.descriptor.id === id);
  if (found) return found;
  const d = findProvider(id)!;
  throw ProviderSetup(`${d.label} is not configured: ${setupHint(d)}`, { provider: id });
}

/**
 * The flagged block; with none flagged, the legacy [fermix_core.agent] provider when that provider is
 * configured (migration input only — setup no longer writes it); else the first in catalog order.
 */
function pickPrimary(candidates: Candidate[], legacy?: string): Candidate {
  const flagged = candidates.filter((c) => c.block.primary === true);
  if (flagged.length > 1) {
    const names = flagged.map((c) => `[fermix_core.providers.${c.descriptor.id}]`).join(" and ");
    throw ProviderSetup(
      `config.toml marks more than one provider primary (${names}); keep primary = true on exactly one`,
      {
        provider: flagged[0]!.descriptor.id,
      },
    );
  }
  if (flagged.length === 1) return flagged[0]!;
  return candidates.find((c) => c.descriptor.id === legacy) ?? candidates[0]!;
}

function buildRoute(
  candidate: Candidate,
  env: Env,
  secrets: SecretDeps & { tokenSource?: TokenSourceFactory },
  modelOverride?: string,
): Route {
  const { descriptor: d, block } = candidate;
  // A signed-in provider's token is read when a call is made, never here: a route is a plan, not a request.
  const oauth = signInOf(d, block, secrets);
  let apiKey: string | undefined;
  if (!d.keyless && !oauth) {
    const slot = providerKeySlot(d);
    apiKey = block.api_key !== undefined ? resolveSecret(block.api_key, slot, secrets) : envSecret(env, slot);
    if (!apiKey) throw ProviderSetup(`${d.label} has no API key: ${setupHint(d)}`, { provider: d.id });
  }
  const model = modelOverride ?? block.default_model ?? d.defaultModel;
  const effort = resolveEffort(d, model, block.reasoning_effort);
  return {
    descriptor: d,
    model,
    effort,
    target: {
      provider: d.id,
      baseUrl: normaliseBaseUrl(
        d,
        block.base_url ?? (d.env.baseUrl ? env[d.env.baseUrl] : undefined) ?? d.defaultBaseUrl,
      ),
      apiKey,
      headers: { ...d.headers },
      // Codex thinks silently for longer at the top efforts, so its idle window doubles there.
      receiveTimeoutMs:
        d.id === "openai_codex" && (effort === "xhigh" || effort === "max")
          ? d.receiveTimeoutMs * 2
          : d.receiveTimeoutMs,
      ...(oauth ? { oauth } : {}),
      ...(d.id === "openai_codex" ? { codex: { fast: block.fast === true } } : {}),
      ...(d.id === "xai" ? { xai: true as const } : {}),
    },
  };
}

function hasEnvCredential(d: ProviderDescriptor, env: Env): boolean {
  if (d.keyless) return Boolean(d.env.baseUrl && env[d.env.baseUrl]);
  return Boolean(d.env.apiKey && env[d.env.apiKey]);
}

/** Ollama users often paste the server root (http://host:11434); its OpenAI-compatible API lives under /v1. */
function normaliseBaseUrl(d: ProviderDescriptor, url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  if (d.id === "ollama" && !/\/v1$/.test(trimmed)) {
    try {
      if (new URL(trimmed).pathname.replace(/\/+$/, "") === "") return `${trimmed}/v1`;
    } catch {}
  }
  return trimmed;
}

export function setupHint(d: ProviderDescriptor): string {
  if (d.authModes.length === 1 && d.oauth)
    return `sign in with ${d.oauth.login}, then run fermix setup --provider ${d.id}`;
  if (d.keyless)
    return `set ${d.env.baseUrl} (e.g. http://localhost:11434/v1) or base_url in [fermix_core.providers.${d.id}]`;
  const where = d.keyHelp ? ` (get one at ${d.keyHelp})` : "";
  return `set ${d.env.apiKey} in the environment or api_key in [fermix_core.providers.${d.id}] of config.toml${where}`;
}

function noProviderMessage(): string {
  return [
    "no model provider is configured. Either export a key before running fermix:",
    "  export OPENAI_API_KEY=sk-…      (or ANTHROPIC_API_KEY, XAI_API_KEY, OPENROUTER_API_KEY, MISTRAL_API_KEY)",
    "  export OLLAMA_BASE_URL=http://localhost:11434/v1      (a local Ollama; no key needed)",
    "or use a ChatGPT plan: fermix auth login --provider codex, then fermix setup --provider openai_codex",
    "or add a provider to config.toml in FERMIX_HOME (~/.fermix by default):",
    "  [fermix_core.providers.openai]",
    "  primary = true",
    '  api_key = "@keyring"      # or the key itself, or "$OPENAI_API_KEY"',
  ].join("\n");
}
