#!/usr/bin/env bun
import { type CliCommand, wantsHelp } from "./cli/command.ts";
import { writeErr, writeOut } from "./cli/output.ts";
import { USAGE } from "./cli/usage.ts";
import { VERSION } from "./version.ts";

/**
 * argv → command. Verbs load lazily so `--version` and `ask` pay only for what they use; the
 * table is the one place a verb is registered.
 */
const COMMANDS: Record<string, () => Promise<{ default: CliCommand }>> = {
  ask: () => import("./cli/ask.ts"),
  chat: () => import("./cli/ask.ts"),
  run: () => import("./cli/run.ts"),
  status: () => import("./cli/status.ts"),
  health: () => import("./cli/health.ts"),
  stop: () => import("./cli/stop.ts"),
  capabilities: () => import("./cli/capabilities.ts"),
  memory: () => import("./cli/memory.ts"),
  plugins: () => import("./cli/plugins.ts"),
  sandbox: () => import("./cli/sandbox.ts"),
  grant: () => import("./cli/grant.ts"),
  revoke: () => import("./cli/revoke.ts"),
  skills: () => import("./cli/skills.ts"),
  debug: () => import("./cli/debug.ts"),
  start: () => import("./cli/start.ts"),
  restart: () => import("./cli/restart.ts"),
  service: () => import("./cli/service.ts"),
  setup: () => import("./cli/setup.ts"),
  doctor: () => import("./cli/doctor.ts"),
  upgrade: () => import("./cli/upgrade.ts"),
  // Hidden: install.sh runs it on a freshly downloaded binary when cosign is absent.
  "verify-release": () => import("./cli/verify-release.ts"),
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
    if (topic) return showHelp((await topic()).default);
    await writeOut(USAGE);
    return 0;
  }
  const load = COMMANDS[verb];
  if (!load) {
    await writeErr(`fermix: unknown command: ${verb}\n${USAGE}`);
    return 2;
  }
  try {
    const command = (await load()).default;
    if (wantsHelp(rest)) return showHelp(command);
    return await command.run(rest);
  } catch (err) {
    const { reportError } = await import("./cli/exit.ts");
    return reportError(err);
  }
}

async function showHelp(command: CliCommand): Promise<number> {
  const { renderHelp } = await import("./cli/command.ts");
  await writeOut(renderHelp(command));
  return 0;
}

// Long-running verbs return when done; exiting explicitly ends anything still holding the loop (stdin, timers).
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (err) => {
    await writeErr(`fermix: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
