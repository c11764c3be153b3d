import * as v from "valibot";
import { loadConfig } from "../../config/load.ts";
import { isFermixError } from "../../error.ts";
import {
  editRouting,
  READABLE_ROUTING_KEYS,
  type RoutingValues,
  readRouting,
  SETTABLE_ROUTING_KEYS,
} from "../../providers/routing-edit.ts";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool } from "../tool.ts";

const Args = lazySchema(() =>
  v.object({
    action: v.picklist(["read", "set", "delete"], 'one of "read", "set" or "delete"'),
    key: v.optional(v.picklist(READABLE_ROUTING_KEYS, `one of ${READABLE_ROUTING_KEYS.join(", ")}`)),
    value: v.optional(v.pipe(v.string(), v.maxLength(200))),
  }),
);

/**
 * The agent's one window on its own routing (spec: self-knowledge.md, sub-agents bullet): it may read
 * [fermix_core.routing] and move sub-agents to another model, provider or effort; it never changes its own
 * model, and a scheduled job's cron_* route is readable only. Writes go through routing-edit.ts: the merged routing
 * is validated first (mis-pairings refused), then one line of config.toml changes with its comments kept.
 * `read` reads config.toml as it is now, like the writes and the sub-agents, not the config of start-up.
 */
export const modelRoutingConfig = defineTool({
  name: "model_routing_config",
  description: "Read or change the model, provider and effort sub-agents use ([fermix_core.routing]).",
  policy: "delegation",
  readOnly: false,
  deferrable: true,
  parameters: Args,
  help: 'action "read" lists the routing (unset keys inherit the main agent\'s model). "set" needs key and value; "delete" needs key and clears it. Settable: subagent_provider, subagent_model, subagent_reasoning_effort. A model set without a provider runs on the primary provider; a model another provider serves is refused unless subagent_provider names that provider. Sub-agents started after the change use it; the main agent never changes its own model.',
  async execute(args, ctx) {
    if (args.action === "read") {
      try {
        return describe(readRouting(ctx.configFile ? await loadConfig(ctx.configFile) : ctx.config));
      } catch (err) {
        if (isFermixError(err)) return { isError: true, content: err.message };
        throw err;
      }
    }
    if (!args.key)
      return { isError: true, content: `${args.action} needs key: one of ${SETTABLE_ROUTING_KEYS.join(", ")}` };
    const key = args.key;
    if (!(SETTABLE_ROUTING_KEYS as readonly string[]).includes(key)) {
      return {
        isError: true,
        content: `${key} is readable only: a scheduled job's route is the owner's to set (config.toml or fermix jobs)`,
      };
    }
    const settable = key as (typeof SETTABLE_ROUTING_KEYS)[number];
    if (!ctx.configFile) return { isError: true, content: "model_routing_config cannot write config here" };
    if (args.action === "set" && args.value === undefined) {
      return { isError: true, content: 'set needs value (use action "delete" to clear a key)' };
    }
    try {
      const { changed, routing } = await editRouting(
        ctx.configFile,
        args.action === "set"
          ? { action: "set", key: settable, value: args.value ?? "" }
          : { action: "delete", key: settable },
      );
      const what = args.action === "set" ? `${key} = ${JSON.stringify(args.value?.trim())}` : `${key} cleared`;
      return `${changed ? what : `${what} (already so)`}; sub-agents started from now on use it.\n${describe(routing)}`;
    } catch (err) {
      if (isFermixError(err)) return { isError: true, content: err.message };
      throw err;
    }
  },
});

function describe(routing: RoutingValues): string {
  const lines = READABLE_ROUTING_KEYS.map((key) => `${key}: ${routing[key] ?? "(unset: inherits the main agent's)"}`);
  return `[fermix_core.routing]\n${lines.join("\n")}`;
}
