/**
 * Where a plugin stands, first match wins (the reference's ladder). Only a `ready` plugin registers
 * tools; an enabled plugin that is not ready shows its status to the agent so it can say what to fix.
 */
export type PluginStatus =
  | "disabled"
  | "not_installed"
  | "incompatible"
  | "missing_host_runtime"
  | "needs_config"
  | "needs_secret"
  | "needs_client_config"
  | "needs_auth"
  | "reauthorization_required"
  | "ready"
  // A ready MCP-rail plugin's server, as the daemon sees it (never from the ladder itself):
  | "starting"
  | "quarantined";

export type ReadinessInput = {
  enabled: boolean;
  /** A loadable manifest: from the store, the bundled set, or a dev_local folder. */
  manifest?: {
    auth: { type: "none" | "oauth2" | "api_key"; provider?: string };
    config?: ReadonlyArray<{ key: string; required?: boolean }>;
  };
  /** Installed but outside this build's plugin_api / min_core_version window. */
  incompatible?: boolean;
  /** The mcp runtime probe failed (missing or too old). */
  runtimeMissing?: boolean;
  configValues: Readonly<Record<string, string | boolean>>;
  secretSet: boolean;
  oauthClientConfigured: boolean;
  token?: "valid" | "invalidated";
};

export function readiness(input: ReadinessInput): PluginStatus {
  if (!input.enabled) return "disabled";
  if (input.incompatible) return "incompatible";
  if (!input.manifest) return "not_installed";
  if (input.runtimeMissing) return "missing_host_runtime";
  const missing = (input.manifest.config ?? []).some((c) => c.required && !isSet(input.configValues[c.key]));
  if (missing) return "needs_config";
  switch (input.manifest.auth.type) {
    case "none":
      return "ready";
    case "api_key":
      return input.secretSet ? "ready" : "needs_secret";
    case "oauth2":
      if (!input.oauthClientConfigured) return "needs_client_config";
      if (!input.token) return "needs_auth";
      return input.token === "invalidated" ? "reauthorization_required" : "ready";
  }
}

/** The exact fix for each status, as the CLI and the agent tell it. */
export function statusFix(name: string, status: PluginStatus, provider?: string): string {
  switch (status) {
    case "disabled":
      return `fermix plugins enable ${name}`;
    case "not_installed":
      return `fermix plugins install ${name}`;
    case "incompatible":
      return `fermix plugins upgrade ${name}, or upgrade fermix`;
    case "missing_host_runtime":
      return `install or upgrade the plugin's runtime, then fermix plugins doctor ${name}`;
    case "needs_config":
      return `fermix plugins config ${name} (then config set ${name} KEY VALUE)`;
    case "needs_secret":
      return `echo "$TOKEN" | fermix plugins auth set ${name}`;
    case "needs_client_config":
      return `set client_id and client_secret under [fermix_core.oauth.${provider ?? "<provider>"}] in config.toml`;
    case "needs_auth":
      return `fermix plugins auth login ${name}`;
    case "reauthorization_required":
      return `Reconnect needed: fermix plugins auth reauthorize ${name}`;
    case "ready":
    case "starting":
      return "";
    case "quarantined":
      return `fermix plugins doctor ${name} shows why; fix that, then fermix plugins reload`;
  }
}

function isSet(value: string | boolean | undefined): boolean {
  return value === true || value === false || (typeof value === "string" && value.trim().length > 0);
}
