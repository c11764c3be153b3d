import type { McpServerHandle } from "./mcp-rail/supervisor.ts";
import type { PluginState } from "./plugin-host-contract.ts";
import { type PluginStatus, statusFix } from "./readiness.ts";

/**
 * One plugin as `plugins list|doctor`, `status` and `doctor` show it: the readiness ladder, refined for a ready
 * MCP-rail plugin by what its server is doing in the daemon. Field names are the `--json` contract.
 */
export type LivePlugin = {
  name: string;
  version?: string;
  source: PluginState["source"];
  enabled: boolean;
  /** The ladder's status, or for a ready MCP plugin its server's: starting, ready or quarantined. */
  status: PluginStatus;
  /** The readiness ladder alone (what config, secrets and sign-ins allow). */
  readiness: PluginStatus;
  /** One line for people: "discovery attempt 2/5", "12 tools", or why a server is quarantined. */
  detail?: string;
  attempt?: number;
  max_attempts?: number;
  /** The number of tools a ready server offers. */
  tools?: number;
  /** Why the server is quarantined: its exit code and last stderr lines, or the deadline it missed. */
  reason?: string;
  /** The command that fixes it, when there is one. */
  fix?: string;
  /** Why the plugin's folder did not load (a bad manifest, a dev_local problem). */
  load_error?: string;
};

/**
 * `handle` is the plugin's server in this process, if any; `serversRun` says this process runs servers for
 * ready plugins (the daemon), so a ready plugin without one yet is about to start rather than idle.
 */
export function liveStatus(
  state: PluginState,
  handle: McpServerHandle | undefined,
  opts: { serversRun: boolean },
): LivePlugin {
  const provider = state.catalogAuth?.provider ?? undefined;
  const base: LivePlugin = {
    name: state.name,
    // The version on this machine, else the catalog's latest (what an install would bring).
    ...((state.version ?? state.latest) ? { version: state.version ?? state.latest } : {}),
    source: state.source,
    enabled: state.enabled,
    status: state.status,
    readiness: state.status,
    ...(state.loadError ? { load_error: state.loadError } : {}),
  };
  const fix = statusFix(state.name, state.status, provider);
  if (state.status !== "ready" || (!handle && !opts.serversRun) || handle?.status === "stopped") {
    return { ...base, ...(fix ? { fix } : {}) };
  }
  if (!handle || handle.status === "starting") {
    const attempt = handle?.attempts ?? 0;
    const max = handle?.maxAttempts;
    return {
      ...base,
      status: "starting",
      ...(attempt ? { attempt } : {}),
      ...(max ? { max_attempts: max } : {}),
      detail: attempt && max ? `discovery attempt ${attempt}/${max}` : "launching its server",
    };
  }
  if (handle.status === "quarantined") {
    return {
      ...base,
      status: "quarantined",
      reason: handle.reason,
      detail: handle.reason,
      attempt: handle.attempts,
      max_attempts: handle.maxAttempts,
      fix: statusFix(state.name, "quarantined"),
    };
  }
  const tools = handle.tools().length;
  return { ...base, status: "ready", tools, detail: `${tools} tool${tools === 1 ? "" : "s"}` };
}
