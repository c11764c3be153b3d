import { checkAppConfig } from "../app-config.ts";
import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { defineCommand } from "./command.ts";
import { EXIT, reportError } from "./exit.ts";
import { writeOut } from "./output.ts";

/**
 * Hidden: whether this binary's daemon would start on this FERMIX_HOME's config.toml — exit 0, or the sentence it
 * would stop on and exit 1. `fermix upgrade` runs it on the new binary before it stops the running daemon: the new
 * release reads config.toml with its own schema, which only that binary knows.
 */
export default defineCommand({
  meta: {
    name: "check-config",
    hidden: true,
    description: "Check config.toml as the daemon loads it at start",
  },
  async run() {
    try {
      const env = processEnv();
      await checkAppConfig(env);
      await writeOut(`fermix: the daemon would start on this config (${fermixPaths(resolveHome(env)).config})\n`);
      return EXIT.ok;
    } catch (err) {
      return reportError(err);
    }
  },
});
