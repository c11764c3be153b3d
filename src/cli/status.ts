import type { Status } from "../protocol/schemas.ts";
import { VERSION } from "../version.ts";
import { parseStrict } from "./args.ts";
import { defineCliCommand } from "./command.ts";
import { connectDaemon } from "./daemon-client.ts";
import { answerQuery } from "./query.ts";

const command = defineCliCommand({
  meta: {
    name: "status",
    usage: "status [--json]",
    description: "Show whether the daemon runs, with its pid, version and uptime.",
  },
  options: { json: { type: "boolean", description: "print the typed JSON envelope" } },
  run(rawArgs) {
    const args = parseStrict(rawArgs, command.options, "status");
    return answerQuery({
      json: args.json === true,
      query: () => connectDaemon().client.status(),
      render: renderStatus,
      toJson: (status) => ({ ...status, cli_version: VERSION }),
    });
  },
});

export default command;

function renderStatus(status: Status): string {
  let text = `fermix: running (pid ${status.pid}, version ${status.version}, up ${formatUptime(status.uptime_ms)})\n`;
  text += `providers: ${status.primary_provider ?? "none configured"}`;
  text += status.fallback_providers.length ? ` (fallbacks: ${status.fallback_providers.join(", ")})\n` : "\n";
  // "Upgraded but nothing changed" is almost always a daemon that was never restarted.
  if (status.version !== VERSION) {
    text += `warning: the daemon runs version ${status.version} but this binary is ${VERSION}; restart it (fermix stop, then fermix run or your service manager)\n`;
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
