import type { PluginStatus } from "./readiness.ts";

export type PluginSummary = { name: string; enabled: boolean; status: PluginStatus; tools: readonly string[] };

/**
 * `## Plugins` in the runtime prompt: a ready plugin's tool names, and `status=` for one that is enabled
 * but not ready — so the agent can say what to connect instead of working around a missing surface.
 * Disabled plugins are not mentioned.
 */
export function pluginsSection(plugins: readonly PluginSummary[]): string {
  const shown = plugins.filter((p) => p.enabled).sort((a, b) => a.name.localeCompare(b.name));
  if (!shown.length) return "";
  const lines = shown.map((p) =>
    p.status === "ready" ? `- ${p.name}: ${p.tools.join(", ")}` : `- ${p.name}: status=${p.status}`,
  );
  return [
    "## Plugins",
    ...lines,
    "Prefer a ready plugin's tools over web_fetch or shell for its service. For a plugin with a status=, tell the owner what to fix.",
  ].join("\n");
}

/** What a call to a plugin tool that is not available gets back: the plugin named, and the fix. */
export function unavailablePluginTool(tool: string, plugins: readonly PluginSummary[]): string | undefined {
  const owner = plugins.find((p) => tool.startsWith(`${p.name}_`));
  if (!owner) return undefined;
  if (!owner.enabled)
    return `${tool} belongs to the ${owner.name} plugin, which is disabled; enable it with fermix plugins enable ${owner.name}.`;
  if (owner.status !== "ready")
    return `${tool} belongs to the ${owner.name} plugin, which is not ready (status=${owner.status}).`;
  return undefined;
}
