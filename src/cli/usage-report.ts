import type { UsageGroupBy } from "../usage/ledger-contract.ts";
import { defineCommand } from "./command.ts";
import { answerQuery } from "./query.ts";

// Mutable: citty's enum type wants string[], and a readonly tuple there loses the args' types.
const GROUPS: string[] = ["day", "provider", "model", "session", "channel", "job"];
const DEFAULT_SINCE = "30d";

/** `fermix usage`: what the agent's model calls cost, from the usage ledger in memory.db. */
export default defineCommand({
  meta: {
    name: "usage",
    description: "Tokens and cost of the agent's model calls, per day, provider, model, session, channel or job",
    details:
      'Every model call (conversations, sub-agents, scheduled jobs, compaction, memory review, /soul drafts) is one row of the usage ledger in memory.db, read here whether or not a daemon runs. Cost comes from the built-in price list or [fermix_core.pricing."<provider>/<model>"] in config.toml; a model with no known price shows its cost as unknown, and a call on a subscription sign-in costs 0. Days are the owner\'s ([fermix_core.personalization] timezone). --json gives the typed envelope: result.rows[] (each with group) and result.total.',
    examples: ["fermix usage", "fermix usage --since 7d --by model", "fermix usage --since 2026-12-01 --by job --json"],
  },
  args: {
    since: {
      type: "string",
      valueHint: "WHEN",
      description: `24h, 7d, 30d (any number of hours or days) or a date YYYY-MM-DD (default ${DEFAULT_SINCE})`,
    },
    by: {
      type: "enum",
      options: GROUPS,
      valueHint: "GROUP",
      description: "day (default), provider, model, session, channel or job",
    },
    json: { type: "boolean", description: "print the typed JSON envelope" },
  },
  run: async ({ args }) => {
    const by = (args.by ?? "day") as UsageGroupBy;
    const { readUsage } = await import("./_usage-local.ts");
    const render = await import("../usage/render.ts");
    return answerQuery({
      json: args.json === true,
      query: async () => readUsage({ since: args.since ?? DEFAULT_SINCE, by }),
      render: (r) => `${render.usageTable(r.summary, by)}${r.note ?? ""}`,
      toJson: (r) => ({
        since: new Date(r.since).toISOString(),
        by,
        timezone: r.timezone,
        rows: r.summary.rows.map((row) => ({ group: row.group, ...render.totalsJson(row) })),
        total: render.totalsJson(r.summary.total),
      }),
    });
  },
});
