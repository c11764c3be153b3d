import { defineCommand } from "./command.ts";
import { connectDaemon } from "./daemon-client.ts";
import { answerQuery } from "./query.ts";

export default defineCommand({
  meta: { name: "health", description: "Check that the daemon answers on its socket" },
  args: { json: { type: "boolean", description: "print the typed JSON envelope" } },
  run({ args }) {
    return answerQuery({
      json: args.json === true,
      query: () => connectDaemon().client.health(),
      render: (health) => `fermix: healthy (pid ${health.pid}, version ${health.version})\n`,
    });
  },
});
