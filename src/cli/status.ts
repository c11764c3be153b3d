import { VERSION } from "../version.ts";
import { parseStrict } from "./args.ts";
import { defineCliCommand, renderHelp } from "./command.ts";
import { connectDaemon } from "./daemon-client.ts";
import { asFermixError, EXIT, exitCodeFor, jsonEnvelope, reportError } from "./exit.ts";
import { writeOut } from "./output.ts";

const command = defineCliCommand({
  meta: {
    name: "status",
    usage: "status [--json]",
    description: "Show whether the daemon runs, with its pid, version and uptime.",
  },
  options: {
    json: { type: "boolean", description: "print the typed JSON envelope" },
    help: { type: "boolean", alias: "h", description: "show this help" },
  },
  async run(rawArgs) {
    const args = parseStrict(rawArgs, command.options, "status");
    if (args.help) {
      await writeOut(renderHelp(command));
      return EXIT.ok;
    }
    try {
      const status = await connectDaemon().client.status();
      if (args.json) {
        await writeOut(`${jsonEnvelope({ ok: true, result: { ...status, cli_version: VERSION } })}\n`);
        return EXIT.ok;
      }
      let text = `fermix: running (pid ${status.pid}, version ${status.version}, up ${formatUptime(status.uptime_ms)})\n`;
      text += `providers: ${status.primary_provider ?? "none configured"}`;
      text += status.fallback_providers.length ? ` (fallbacks: ${status.fallback_providers.join(", ")})\n` : "\n";
      if (status.version !== VERSION) {
        text += `warning: the daemon runs version ${status.version} but this binary is ${VERSION}; restart it (fermix stop, then fermix run or your service manager)\n`;
      }
      await writeOut(text);
      return EXIT.ok;
    } catch (err) {
      if (args.json) {
        const error = asFermixError(err);
        await writeOut(`${jsonEnvelope({ ok: false, error })}\n`);
        return exitCodeFor(error);
      }
      return reportError(err);
    }
  },
});

export default command;

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
