import { processEnv } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { FermixError } from "../error.ts";
import { NOT_RUNNING } from "../protocol/client.ts";
import type { ChannelStatus, WebhooksState } from "../protocol/schemas.ts";
import { defineCommand } from "./command.ts";
import { connectDaemon } from "./daemon-client.ts";
import { type Paint, stdoutPaint } from "./paint.ts";
import { answerQuery } from "./query.ts";

/** A channel's row: the daemon's live state joined to whether config.toml enables it. */
export type ChannelRow = ChannelStatus & { enabled: boolean };

/** What `channels status` shows: the channels, and the webhook port when a webhook channel uses it. */
export type ChannelsView = { channels: ChannelRow[]; webhooks?: WebhooksState };

export default defineCommand({
  meta: {
    name: "channels",
    description: "Show the chat channels: enabled, connected, last update, why one is degraded",
    details:
      "The running daemon's view of each channel config.toml names. With no daemon, no channel is connected: it says which ones config.toml enables and exits 3, like fermix status. Add one with fermix setup --channel telegram.",
    examples: ["fermix channels status", "fermix channels status --json | jq '.result.channels[]'"],
  },
  default: "status",
  subCommands: {
    status: defineCommand({
      meta: { name: "status", description: "Each channel: enabled, state, connected, last update, degraded reason" },
      args: { json: { type: "boolean", description: "print the typed JSON envelope" } },
      run: ({ args }) =>
        answerQuery({
          json: args.json === true,
          query: channelRows,
          render: (view) => renderChannels(view.channels) + renderWebhooks(view.webhooks),
          toJson: (view) => view,
        }),
    }),
  },
});

async function channelRows(): Promise<ChannelsView> {
  const env = processEnv();
  const config = await loadConfig(fermixPaths(resolveHome(env)).config);
  const blocks = configuredBlocks(config);
  let live: ChannelStatus[];
  let webhooks: WebhooksState | undefined;
  try {
    ({ channels: live, webhooks } = await connectDaemon().client.channels());
  } catch (err) {
    if (err instanceof FermixError && err.code === NOT_RUNNING) throw notRunning(blocks);
    if (err instanceof FermixError && err.code === "not_found" && err.message.startsWith("no route ")) {
      throw new FermixError("daemon_outdated", "the running daemon predates chat channels; restart it: fermix restart");
    }
    throw err;
  }
  const rows: ChannelRow[] = live.map((s) => ({ ...s, enabled: true }));
  // A block that is written but not enabled shows too, so "why does my bot not answer" has an answer here.
  for (const [name, block] of blocks) {
    if (rows.some((r) => r.name === name)) continue;
    rows.push({
      name,
      enabled: block.enabled,
      state: block.enabled ? "not running" : "disabled",
      connected: false,
      last_update_at: null,
      degraded: null,
      reason: block.enabled
        ? "the daemon does not run it: this fermix has no such channel, or config.toml changed since it started (fermix restart)"
        : null,
    });
  }
  return { channels: rows, ...(webhooks ? { webhooks } : {}) };
}

function configuredBlocks(config: Config): Array<[string, { enabled: boolean }]> {
  const blocks = (config.fermix_channels ?? {}) as Record<string, { enabled?: unknown } | undefined>;
  return Object.entries(blocks).map(([name, block]) => [name, { enabled: block?.enabled === true }]);
}

function notRunning(blocks: Array<[string, { enabled: boolean }]>): FermixError {
  const enabled = blocks.filter(([, b]) => b.enabled).map(([name]) => name);
  const what = enabled.length
    ? `config.toml enables ${enabled.join(", ")}, and it starts with the daemon: fermix start`
    : "config.toml enables no channel (fermix setup --channel telegram adds one)";
  return new FermixError(NOT_RUNNING, `the daemon is not running, so no channel is connected; ${what}`);
}

/** One tab-separated line per channel: name, enabled, state, connection, last update, then what is wrong. */
export function renderChannels(rows: ChannelRow[], paint: Paint = stdoutPaint(), now = Date.now()): string {
  if (!rows.length) return "no chat channel is enabled; fermix setup --channel telegram adds one\n";
  const lines = rows.map((r) => {
    const state = r.state === "running" ? paint.ok(r.state) : r.enabled ? paint.fail(r.state) : r.state;
    const cells = [r.name, r.enabled ? "enabled" : "disabled", state];
    if (r.enabled) {
      cells.push(r.connected ? paint.ok("connected") : paint.warn("not connected"));
      cells.push(
        r.last_update_at ? `last update ${r.last_update_at} (${ago(now, r.last_update_at)})` : "no update yet",
      );
    }
    if (r.degraded) cells.push(`${paint.warn("degraded")}: ${r.degraded}`);
    if (r.reason) cells.push(r.reason);
    return cells.join("\t");
  });
  return `${lines.join("\n")}\n`;
}

/** The webhook port's line, once a webhook channel uses it: listening where, or why not and what to do. */
export function renderWebhooks(state: WebhooksState | undefined, paint: Paint = stdoutPaint()): string {
  if (!state || state.state === "idle") return "";
  if (state.state === "listening") return `webhooks\t${paint.ok("listening")}\ton 127.0.0.1:${state.port}\n`;
  return `webhooks\t${paint.fail(state.state)}\t${state.reason ?? `port ${state.port}`}\n`;
}

function ago(now: number, iso: string): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}
