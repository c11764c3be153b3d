import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { createSecretStore } from "../config/secret-store.ts";
import type { GuardedFetch } from "../net/types.ts";
import type { Log } from "../observability/log.ts";
import { VERSION } from "../version.ts";
import { pluginInputsSignature } from "./inputs-signature.ts";
import { buildMcpSupervisor, discoveryTimeoutOf } from "./mcp-rail/shared-supervisor.ts";
import type { McpSupervisor } from "./mcp-rail/supervisor.ts";
import { createToolCache } from "./mcp-rail/tool-cache.ts";
import { createTokenStore } from "./oauth/token-store.ts";
import { createPluginHost } from "./plugin-host.ts";
import { createPluginRuntime, type PluginRuntimeDeps } from "./plugin-runtime.ts";
import type { PluginRuntime } from "./plugin-runtime-contract.ts";
import { createPluginStore } from "./store/plugin-store.ts";

/**
 * In the daemon a tool call waits this long for a server that is mid-start: a model retrying in a moment
 * beats a turn that stalls for a whole discovery attempt.
 */
const DAEMON_CALL_WAIT_MS = 5_000;

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
  /** The daemon runs plugin servers; a one-shot ask starts one only when the model calls its tool. */
  role: "daemon" | "oneshot";
  /** The process's MCP supervisor, shared with `[mcp.servers]`; one is built when absent. */
  mcp?: McpSupervisor;
}): PluginRuntime {
  const tokens = createTokenStore(deps.paths.auth);
  const discoveryTimeoutMs = discoveryTimeoutOf(deps.config);
  const toolCache = createToolCache(deps.paths.plugins.toolCache);
  let runtime: PluginRuntime | undefined;
  const mcp = deps.mcp ?? buildMcpSupervisor({ paths: deps.paths, config: deps.config, log: deps.log });
  mcp.watch(() => runtime?.serverChanged());
  runtime = createPluginRuntime({
    host: createPluginHost({
      paths: deps.paths,
      coreVersion: VERSION,
      // The catalog (and sigstore, to check its signature) loads only when something asks for it.
      catalog: () => import("./catalog/load-catalog.ts").then(({ loadCatalog }) => loadCatalog({ net: deps.net })),
      store: createPluginStore({ paths: deps.paths.plugins }),
      // The same store the plugins CLI writes to, `secret_store = "file"` included.
      secrets: createSecretStore({
        secretsDir: deps.paths.secrets,
        profile: deps.config.fermix_core?.profile,
        prefer: deps.config.fermix_core?.secret_store === "file" ? "file" : undefined,
      }),
      tokenState: (name) => tokens.state(name),
    }),
    tokens,
    mcp,
    toolCache,
    env: deps.env,
    log: deps.log,
    resolveSecret: deps.resolveSecret,
    serverStart: deps.role === "daemon" ? "eager" : "lazy",
    // A one-shot ask has nothing else to run its server for: the call may wait out one discovery attempt.
    callWaitMs: deps.role === "daemon" ? DAEMON_CALL_WAIT_MS : discoveryTimeoutMs,
    inputsSignature: (config) => pluginInputsSignature(deps.paths, config),
  });
  return runtime;
}
