import { existsSync } from "node:fs";
import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import type { LivePluginState, Status } from "../protocol/schemas.ts";
import { VERSION } from "../version.ts";
import { defineCommand } from "./command.ts";
import { connectDaemon } from "./daemon-client.ts";
import { type Paint, stdoutPaint } from "./paint.ts";
import { answerQuery } from "./query.ts";

export default defineCommand({
  meta: { name: "status", description: "Show whether the daemon runs: pid, version, uptime" },
  args: { json: { type: "boolean", description: "print the typed JSON envelope" } },
  run({ args }) {
    return answerQuery({
      json: args.json === true,
      query: async () => {
        const { client } = connectDaemon();
        const status = await client.status();
        // The daemon's own view of its plugins: a server starting or quarantined is news for the owner.
        const report = await client.plugins().catch(() => undefined);
        const plugins = report?.active ? report.plugins.filter((p) => p.enabled) : [];
        return { ...status, reconnect: await pluginsToReconnect(), plugins };
      },
      render: renderStatus,
      toJson: ({ reconnect, ...status }) => ({ ...status, cli_version: VERSION, plugins_needing_reconnect: reconnect }),
    });
  },
});

/**
 * Enabled plugins whose sign-in is gone, from auth.json and config.toml on this side of the socket. Costs
 * one stat when auth.json does not exist; a status must never fail for it, so a bad file shows nothing.
 */
async function pluginsToReconnect(): Promise<string[]> {
  try {
    const paths = fermixPaths(resolveHome(processEnv()));
    if (!existsSync(paths.auth)) return [];
    const { pluginsNeedingReconnectIn } = await import("../doctor/plugin-reconnect.ts");
    return await pluginsNeedingReconnectIn(paths, new Date());
  } catch {
    return [];
  }
}

/** The status words are coloured on a terminal (`paint`); the text is the same either way. */
export function renderStatus(
  status: Status & { reconnect: string[]; plugins: LivePluginState[] },
  paint: Paint = stdoutPaint(),
): string {
  let text = `fermix: ${paint.ok("running")} (pid ${status.pid}, version ${status.version}, up ${formatUptime(status.uptime_ms)})\n`;
  text += `providers: ${status.primary_provider ?? "none configured"}`;
  text += status.fallback_providers.length ? ` (fallbacks: ${status.fallback_providers.join(", ")})\n` : "\n";
  // "Upgraded but nothing changed" is almost always a daemon that was never restarted.
  if (status.version !== VERSION) {
    text += `${paint.warn("warning:")} the daemon runs version ${status.version} but this binary is ${VERSION}; restart it: fermix restart\n`;
  }
  // Errors nothing handled: the daemon kept serving, but the owner should know (the log has each stack).
  if (status.daemon_errors) {
    const n = status.daemon_errors;
    text += `daemon: ${paint.warn(`${n} unexpected error${n === 1 ? "" : "s"}`)} since it started — fermix logs --level error\n`;
  }
  // A part of the daemon in trouble says so, in its own words (its object is what /v1/health and doctor read too).
  for (const part of status.subsystems ?? []) {
    if (part.state !== "failed" && part.state !== "degraded") continue;
    const paintState = part.state === "failed" ? paint.fail : paint.warn;
    text += `${part.name}: ${paintState(part.state)}${part.detail ? ` — ${part.detail}` : ""}
`;
  }
  for (const name of status.reconnect) {
    text += `plugins: ${name} ${paint.warn("needs reconnecting")} — fermix plugins auth reauthorize ${name}\n`;
  }
  if (status.plugins.length) {
    const ready = status.plugins.filter((p) => p.status === "ready").map((p) => p.name);
    if (ready.length) text += `plugins: ${paint.ok("ready")}: ${ready.join(", ")}\n`;
    for (const p of status.plugins) {
      if (p.status === "ready" || status.reconnect.includes(p.name)) continue;
      const detail = p.detail ? ` (${p.detail})` : "";
      text += `plugins: ${p.name} ${(p.status === "quarantined" ? paint.fail : paint.warn)(p.status)}${detail}${p.fix ? ` — ${p.fix}` : ""}\n`;
    }
  }
  return text;
}

/** 1h5m, 3m12s, 42s: the two largest units, like the earlier CLI. */
export function formatUptime(ms: number): string {
  const total = Math.floor(ms / 1000);
  const d = Math.floor(total / 86400);
  const h = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (d) return `${d}d${h}h`;
  if (h) return `${h}h${m}m`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}
