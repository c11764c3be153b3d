import { parseStrict } from "./args.ts";
import { defineCliCommand } from "./command.ts";
import { connectDaemon } from "./daemon-client.ts";
import { answerQuery } from "./query.ts";

const command = defineCliCommand({
  meta: { name: "health", usage: "health [--json]", description: "Check that the daemon answers on its socket." },
  options: { json: { type: "boolean", description: "print the typed JSON envelope" } },
  run(rawArgs) {
    const args = parseStrict(rawArgs, command.options, "health");
    return answerQuery({
      json: args.json === true,
      query: () => connectDaemon().client.health(),
      render: (health) => `fermix: healthy (pid ${health.pid}, version ${health.version})\n`,
    });
  },
});

export default command;
