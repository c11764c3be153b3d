#!/usr/bin/env bun
import { defineCommand, lazy } from "./cli/command.ts";
import { writeErr, writeOut } from "./cli/output.ts";
import { VERSION } from "./version.ts";

/**
 * The command tree. Every verb is a citty command in its own file under src/cli/, loaded only when it runs
 * (or when help or a completion needs its declaration); this table is the one place a verb is registered.
 */
export const fermix = defineCommand({
  meta: {
    name: "fermix",
    version: VERSION,
    usage: "<command> [options]",
    description: "a personal AI agent in one binary",
    examples: [
      'fermix ask "what is a monad, in two sentences?"',
      'git diff | fermix ask "write the commit message"',
      'fermix ask --json "ping" | jq -r .response',
    ],
  },
  args: { version: { type: "boolean", alias: "V", description: "print the version" } },
  subCommands: {
    ask: lazy(() => import("./cli/ask.ts")),
    chat: lazy(() => import("./cli/chat/chat.ts")),
    run: lazy(() => import("./cli/run.ts")),
    status: lazy(() => import("./cli/status.ts")),
    health: lazy(() => import("./cli/health.ts")),
    logs: lazy(() => import("./cli/logs.ts")),
    start: lazy(() => import("./cli/start.ts")),
    stop: lazy(() => import("./cli/stop.ts")),
    restart: lazy(() => import("./cli/restart.ts")),
    service: lazy(() => import("./cli/service.ts")),
    setup: lazy(() => import("./cli/setup.ts")),
    doctor: lazy(() => import("./cli/doctor.ts")),
    upgrade: lazy(() => import("./cli/upgrade.ts")),
    capabilities: lazy(() => import("./cli/capabilities.ts")),
    skills: lazy(() => import("./cli/skills.ts")),
    memory: lazy(() => import("./cli/memory.ts")),
    plugins: lazy(() => import("./cli/plugins.ts")),
    auth: lazy(() => import("./cli/auth.ts")),
    mcp: lazy(() => import("./cli/mcp.ts")),
    jobs: lazy(() => import("./cli/jobs.ts")),
    sessions: lazy(() => import("./cli/sessions.ts")),
    usage: lazy(() => import("./cli/usage-report.ts")),
    channels: lazy(() => import("./cli/channels.ts")),
    voice: lazy(() => import("./cli/voice.ts")),
    sandbox: lazy(() => import("./cli/sandbox.ts")),
    grant: lazy(() => import("./cli/grant.ts")),
    revoke: lazy(() => import("./cli/revoke.ts")),
    completion: lazy(() => import("./cli/completion.ts")),
    help: lazy(() => import("./cli/help.ts")),
    // Hidden: developer diagnostics, not a stable interface.
    debug: lazy(() => import("./cli/debug.ts")),
    // Hidden: the shell completion scripts call it for candidates.
    complete: lazy(() => import("./cli/complete.ts")),
    // Hidden: install.sh runs it on a freshly downloaded binary when cosign is absent.
    "verify-release": lazy(() => import("./cli/verify-release.ts")),
    // Hidden: `fermix upgrade` runs it on the new binary before it stops the daemon.
    "check-config": lazy(() => import("./cli/check-config.ts")),
  },
});

async function main(argv: string[]): Promise<number> {
  const verb = argv[0];
  // The fastest path, answered before the command tree's code loads: scripts and `fermix upgrade` call it.
  if (verb === "--version" || verb === "-V" || verb === "version") {
    await writeOut(`${VERSION}\n`);
    return 0;
  }
  const { runCli } = await import("./cli/dispatch.ts");
  try {
    return await runCli(fermix, argv);
  } catch (err) {
    const { reportError } = await import("./cli/exit.ts");
    return reportError(err);
  }
}

// Imported (by tests walking the tree) it only declares; run, it is the CLI. Long-running verbs return when
// done; exiting explicitly ends anything still holding the loop (stdin, timers).
if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    async (err) => {
      await writeErr(`fermix: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
