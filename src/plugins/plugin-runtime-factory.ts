import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { createSecretStore } from "../config/secret-store.ts";
import type { GuardedFetch } from "../net/types.ts";
import type { Log } from "../observability/log.ts";
import { VERSION } from "../version.ts";
import { loadCatalog } from "./catalog/load-catalog.ts";
import { createMcpSupervisor } from "./mcp-rail/supervisor.ts";
import { createTokenStore } from "./oauth/token-store.ts";
import { createPluginHost } from "./plugin-host.ts";
import { createPluginRuntime, type PluginRuntimeDeps } from "./plugin-runtime.ts";
import { createPluginStore } from "./store/plugin-store.ts";

/**
 * Everything plugins need, wired. Kept behind a dynamic import by the composition root: sigstore, tar,
 * the MCP SDK and OAuth are only loaded once a plugin is enabled, so a plain `fermix ask` never pays for them.
 */
export function buildPluginRuntime(deps: {
  paths: FermixPaths;
  config: Config;
  net: GuardedFetch;
  env: Record<string, string | undefined>;
  log: Log;
  resolveSecret: PluginRuntimeDeps["resolveSecret"];
}) {
  const tokens = createTokenStore(deps.paths.auth);
  return createPluginRuntime({
    host: createPluginHost({
      paths: deps.paths,
      coreVersion: VERSION,
      catalog: () => loadCatalog({ net: deps.net }),
      store: createPluginStore({ paths: deps.paths.plugins }),
      secrets: createSecretStore({ secretsDir: deps.paths.secrets, profile: deps.config.fermix_core?.profile }),
      tokenState: (name) => tokens.state(name),
    }),
    tokens,
    mcp: createMcpSupervisor({ log: deps.log.withTag("mcp") }),
    env: deps.env,
    log: deps.log,
    resolveSecret: deps.resolveSecret,
  });
}
