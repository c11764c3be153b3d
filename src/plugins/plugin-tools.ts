import * as v from "valibot";
import { type AnyTool, defineTool } from "../capabilities/tool.ts";
import { callHttpTool } from "./http-rail/call-tool.ts";
import type { ManifestTool } from "./manifest/schema.ts";
import type { PluginState } from "./plugin-host-contract.ts";

export type PluginCredentials = {
  /** The plugin's credential now: its API key, or its OAuth access token. */
  credential(plugin: PluginState): Promise<string | undefined>;
  /** A fresh OAuth access token after a 401 (read-only tools only; the rail decides). */
  refresh?(plugin: PluginState): Promise<string | undefined>;
};

/** Arguments stay a plain object here: the rail checks them against the tool's own JSON Schema. */
const AnyArguments = v.record(v.string(), v.unknown());

/**
 * The tools of every ready plugin on the HTTP rail, as registry tools named `<plugin>_<tool>`. They are
 * policy "plugin" (never a guest's), read-only as the manifest says, and reach their service only
 * through the outbound door in the tool context.
 */
export function httpPluginTools(states: readonly PluginState[], credentials: PluginCredentials): AnyTool[] {
  const tools: AnyTool[] = [];
  for (const plugin of states) {
    if (plugin.status !== "ready" || !plugin.manifest) continue;
    const auth = plugin.manifest.auth as {
      type: "none" | "oauth2" | "api_key";
      scheme?: "Bearer" | "Bot";
      header?: string;
    };
    for (const tool of plugin.manifest.tools as ManifestTool[]) {
      if ((tool.rail ?? "http") !== "http") continue;
      tools.push(
        defineTool({
          name: tool.name,
          description: tool.description,
          parameters: AnyArguments,
          jsonSchema: tool.parameters as Record<string, unknown>,
          policy: "plugin",
          readOnly: tool.read_only === true,
          async execute(args, ctx) {
            return callHttpTool({
              plugin: { name: plugin.name, auth },
              tool,
              args,
              credential: await credentials.credential(plugin),
              net: ctx.net,
              refresh: credentials.refresh ? () => credentials.refresh!(plugin) : undefined,
              signal: ctx.signal,
            });
          },
        }),
      );
    }
  }
  return tools;
}
