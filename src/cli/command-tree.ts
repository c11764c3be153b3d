import { VERSION } from "../version.ts";
import { defineCommand, lazy } from "./command.ts";

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
    ask: lazy(() => import("./ask.ts")),
    chat: lazy(() => import("./chat/chat.ts")),
    run: lazy(() => import("./run.ts")),
    status: lazy(() => import("./status.ts")),
    health: lazy(() => import("./health.ts")),
    logs: lazy(() => import("./logs.ts")),
    start: lazy(() => import("./start.ts")),
    stop: lazy(() => import("./stop.ts")),
    restart: lazy(() => import("./restart.ts")),
    service: lazy(() => import("./service.ts")),
    setup: lazy(() => import("./setup.ts")),
    doctor: lazy(() => import("./doctor.ts")),
    upgrade: lazy(() => import("./upgrade.ts")),
    capabilities: lazy(() => import("./capabilities.ts")),
    skills: lazy(() => import("./skills.ts")),
    memory: lazy(() => import("./memory.ts")),
    plugins: lazy(() => import("./plugins.ts")),
    auth: lazy(() => import("./auth.ts")),
    mcp: lazy(() => import("./mcp.ts")),
    jobs: lazy(() => import("./jobs.ts")),
    sessions: lazy(() => import("./sessions.ts")),
    usage: lazy(() => import("./usage-report.ts")),
    channels: lazy(() => import("./channels.ts")),
    voice: lazy(() => import("./voice.ts")),
    sandbox: lazy(() => import("./sandbox.ts")),
    grant: lazy(() => import("./grant.ts")),
    revoke: lazy(() => import("./revoke.ts")),
    completion: lazy(() => import("./completion.ts")),
    help: lazy(() => import("./help.ts")),
    // Hidden: developer diagnostics, not a stable interface.
    debug: lazy(() => import("./debug.ts")),
    // Hidden: the shell completion scripts call it for candidates.
    complete: lazy(() => import("./complete.ts")),
    // Hidden: install.sh runs it on a freshly downloaded binary when cosign is absent.
    "verify-release": lazy(() => import("./verify-release.ts")),
    // Hidden: `fermix upgrade` runs it on the new binary before it stops the daemon.
    "check-config": lazy(() => import("./check-config.ts")),
  },
});
