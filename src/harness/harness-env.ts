import type { Config } from "../config/schema.ts";
import type { Vendor } from "./harness-types.ts";

/**
 * The environment a vendor CLI runs with: the owner's own (its login, PATH, proxies — it is the owner's tool),
 * without fermix's own settings, plus the vendor home folders [fermix_core.harness] names.
 */
export function vendorEnv(
  env: Record<string, string | undefined>,
  vendor: Vendor,
  config: Config,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !key.startsWith("FERMIX_")) out[key] = value;
  }
  const harness = config.fermix_core?.harness;
  if (vendor === "codex" && harness?.codex_home) out.CODEX_HOME = harness.codex_home;
  if (vendor === "claude" && harness?.claude_config_dir) out.CLAUDE_CONFIG_DIR = harness.claude_config_dir;
  return out;
}
