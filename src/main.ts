#!/usr/bin/env bun
import { writeErr, writeOut } from "./cli/output.ts";
import { USAGE } from "./cli/usage.ts";
import { VERSION } from "./version.ts";

/**
 * argv → command. Verbs load lazily so `--version` and `ask` pay only for what they use; the
 * table is the one place a verb is registered.
 */
const COMMANDS: Record<string, () => Promise<{ default: { run(rawArgs: string[]): Promise<number> } }>> = {
  ask: () => import("./cli/ask.ts"),
  chat: () => import("./cli/ask.ts"),
  run: () => import("./cli/run.ts"),
  status: () => import("./cli/status.ts"),
  health: () => import("./cli/health.ts"),
  stop: () => import("./cli/stop.ts"),
  debug: () => import("./cli/debug.ts"),
};

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined) {
    await writeErr(USAGE);
    return 2;
  }
  if (verb === "--version" || verb === "-V" || verb === "version") {
    await writeOut(`${VERSION}\n`);
    return 0;
  }
  if (verb === "help" || verb === "--help" || verb === "-h") {
    const topic = rest[0] && COMMANDS[rest[0]];
    if (topic) return (await topic()).default.run(["--help"]);
    await writeOut(USAGE);
    return 0;
  }
  const load = COMMANDS[verb];
  if (!load) {
    await writeErr(`fermix: unknown command: ${verb}\n${USAGE}`);
    return 2;
  }
  try {
    return await (await load()).default.run(rest);
  } catch (err) {
    const { reportError } = await import("./cli/exit.ts");
    return reportError(err);
  }
}

// Long-running verbs return when done; exiting explicitly ends anything still holding the loop (stdin, timers).
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (err) => {
    await writeErr(`fermix: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
