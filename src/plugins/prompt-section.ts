import type { PluginStatus } from "./readiness.ts";

export type PluginSummary = {
  name: string;
  enabled: boolean;
  status: PluginStatus;
  tools: readonly string[];
  /** For a server starting or quarantined: the attempt, or why. */
  detail?: string;
  /** The owner's command that fixes a status. */
  fix?: string;
};

/**
 * `## Plugins` in the runtime prompt: a ready plugin's tool names, and `status=` for one that is enabled
 * but not ready — so the agent can say what to connect instead of working around a missing surface.
 * Disabled plugins are not mentioned.
 */
export function pluginsSection(plugins: readonly PluginSummary[]): string {
  const shown = plugins.filter((p) => p.enabled).sort((a, b) => a.name.localeCompare(b.name));
  if (!shown.length) return "";
  const lines = shown.map((p) => {
    if (p.status === "ready") return `- ${p.name}: ${p.tools.join(", ")}`;
    if (p.status === "starting")
      return `- ${p.name}: status=starting (${p.detail ?? "launching"}); its tools (${p.tools.join(", ") || "not listed yet"}) work once it is up — if a call says it is starting, try again in a moment`;
    const why = p.detail ? ` (${p.detail})` : "";
    return `- ${p.name}: status=${p.status}${why}${p.fix ? `; fix: ${p.fix}` : ""}`;
  });
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
  if (owner.status === "quarantined")
    return `${tool} belongs to the ${owner.name} plugin, which is quarantined${owner.detail ? `: ${owner.detail}` : ""}. The owner can see why with: fermix plugins doctor ${owner.name}`;
  if (owner.status === "starting")
    return `${owner.name} is starting (${owner.detail ?? "launching"}); try ${tool} again in a moment.`;
  if (owner.status !== "ready")
    return `${tool} belongs to the ${owner.name} plugin, which is not ready (status=${owner.status})${owner.fix ? `; the owner can fix it with: ${owner.fix}` : ""}.`;
  return undefined;
}
