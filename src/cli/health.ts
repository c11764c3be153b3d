import { parseStrict } from "./args.ts";
import { defineCliCommand, renderHelp } from "./command.ts";
import { connectDaemon } from "./daemon-client.ts";
import { asFermixError, EXIT, exitCodeFor, jsonEnvelope, reportError } from "./exit.ts";
import { writeOut } from "./output.ts";

const command = defineCliCommand({
  meta: { name: "health", usage: "health [--json]", description: "Check that the daemon answers on its socket." },
  options: {
    json: { type: "boolean", description: "print the typed JSON envelope" },
    help: { type: "boolean", alias: "h", description: "show this help" },
  },
  async run(rawArgs) {
    const args = parseStrict(rawArgs, command.options, "health");
    if (args.help) {
      await writeOut(renderHelp(command));
      return EXIT.ok;
    }
    try {
      const health = await connectDaemon().client.health();
      await writeOut(
        args.json
          ? `${jsonEnvelope({ ok: true, result: health })}\n`
          : `fermix: healthy (pid ${health.pid}, version ${health.version})\n`,
      );
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
