import * as v from "valibot";
import type { AnyTool } from "../capabilities/tool.ts";
import { defineTool } from "../capabilities/tool.ts";
import type { Config } from "../config/schema.ts";
import { oauthClientSecretSlot, pluginSecretSlot } from "../config/secret-slots.ts";
import type { Log } from "../observability/log.ts";
import type { McpSupervisor } from "./mcp-rail/supervisor.ts";
import { refresh as refreshToken } from "./oauth/login.ts";
import type { TokenStore } from "./oauth/token-store.ts";
import { type PluginHost, type PluginState, summarise } from "./plugin-host.ts";
import { httpPluginTools } from "./plugin-tools.ts";
import type { PluginSummary } from "./prompt-section.ts";
import { pluginConfigValues } from "./settings/plugin-config.ts";

export type PluginRuntimeDeps = {
  host: PluginHost;
  tokens: TokenStore;
  mcp: McpSupervisor;
  env: Record<string, string | undefined>;
  log: Log;
  resolveSecret(ref: NonNullable<NonNullable<Config["fermix_core"]>["plugin_secrets"]>[string], slot: string): string;
};

/**
 * What a turn gets from the plugins: the prompt's summaries and the ready plugins' tools — HTTP-rail
 * tools built from their manifests, MCP-rail tools from their supervised servers (started when a plugin
 * becomes ready, stopped when it no longer is).
 */
export function createPluginRuntime(deps: PluginRuntimeDeps) {
  const running = new Map<string, string>(); // plugin → the dir its server runs from

  async function forTurn(config: Config): Promise<{ summaries: PluginSummary[]; tools: AnyTool[] }> {
    const states = await deps.host.activeStates(config);
    const credentials = {
      credential: async (plugin: PluginState) => credentialOf(plugin, config),
      refresh: async (plugin: PluginState) => refreshOf(plugin, config),
    };
    const tools = [...httpPluginTools(states, credentials), ...(await mcpTools(states, config))];
    return { summaries: summarise(states), tools };
  }

  async function credentialOf(plugin: PluginState, config: Config): Promise<string | undefined> {
    const type = plugin.manifest?.auth.type;
    if (type === "api_key") {
      const ref = config.fermix_core?.plugin_secrets?.[plugin.name] ?? "@keyring";
      try {
        return deps.resolveSecret(ref, pluginSecretSlot(plugin.name));
      } catch {
        return undefined;
      }
    }
    if (type === "oauth2") return deps.tokens.get(plugin.name)?.access_token;
    return undefined;
  }

  async function refreshOf(plugin: PluginState, config: Config): Promise<string | undefined> {
    const provider = (plugin.manifest?.auth as { provider?: string } | undefined)?.provider;
    const client = provider ? config.fermix_core?.oauth?.[provider] : undefined;
    if (!client?.client_id || !client.client_secret) return undefined;
    try {
      const token = await refreshToken(plugin.name, {
        clientId: client.client_id,
        clientSecret: deps.resolveSecret(client.client_secret, oauthClientSecretSlot(provider!)),
        store: deps.tokens,
      });
      return token.access_token;
    } catch (err) {
      deps.log.warn(`refreshing ${plugin.name}'s token failed: ${(err as Error).message}`);
      return undefined;
    }
  }

  async function mcpTools(states: readonly PluginState[], config: Config): Promise<AnyTool[]> {
    const ready = states.filter(
      (s) => s.status === "ready" && s.manifest?.tools.some((t) => t.rail === "mcp") && s.dir,
    );
    for (const [name] of running) {
      if (!ready.some((s) => s.name === name)) {
        running.delete(name);
        await deps.mcp.stop(name);
      }
    }
    const tools: AnyTool[] = [];
    for (const plugin of ready) {
      let handle = deps.mcp.get(plugin.name);
      if (!handle || running.get(plugin.name) !== plugin.dir) {
        handle = await deps.mcp.start({
          name: plugin.name,
          dir: plugin.dir!,
          manifest: plugin.manifest!,
          configValues: pluginConfigValues(config, plugin.name),
          env: deps.env,
        });
        running.set(plugin.name, plugin.dir!);
      }
      if ((await handle.ready()) !== "ready") continue;
      for (const tool of handle.tools()) {
        const server = handle;
        tools.push(
          defineTool({
            name: tool.name,
            description: tool.description.slice(0, 300),
            parameters: v.record(v.string(), v.unknown()),
            jsonSchema: tool.inputSchema as Record<string, unknown>,
            policy: "plugin",
            // MCP discovery says nothing reliable about side effects; treat every call as a write.
            readOnly: false,
            execute: (args, ctx) => server.call(tool.name, args, ctx.signal),
          }),
        );
      }
    }
    return tools;
  }

  return { forTurn, stopAll: () => deps.mcp.stopAll() };
}

export type PluginRuntime = ReturnType<typeof createPluginRuntime>;
