import { setMode } from "../config/sandbox-edit.ts";
import type { SandboxMode, SandboxStatus } from "../sandbox/types.ts";
import { LIVE_NOTE, localSandbox } from "./_sandbox.ts";
import { parseStrict } from "./args.ts";
import { defineCliCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";
import { answerQuery } from "./query.ts";

const MODES: readonly SandboxMode[] = ["strict", "standard", "open"];

const command = defineCliCommand({
  meta: {
    name: "sandbox",
    usage: "sandbox status [--json] | explain PATH | mode strict|standard|open",
    description: "Show what the agent's tools may touch, explain how a path is judged, or change the mode.",
  },
  options: { json: { type: "boolean", description: "status as the typed JSON envelope" } },
  async run(rawArgs) {
    const args = parseStrict(rawArgs, command.options, "sandbox");
    const [sub, value, extra] = args._;
    if (extra !== undefined) throw UsageError(`sandbox: unexpected argument "${extra}"`);
    switch (sub ?? "status") {
      case "status": {
        const { sandbox, caller } = await localSandbox();
        return answerQuery({
          json: args.json === true,
          query: async () => ({ ...sandbox.status(), roots_for_this_shell: sandbox.roots(caller) }),
          render: renderStatus,
        });
      }
      case "explain": {
        if (!value) throw UsageError("sandbox explain: give the PATH to explain");
        const { sandbox, caller } = await localSandbox();
        await writeOut(`${(await sandbox.explain(value, caller)).trimEnd()}\n`);
        return EXIT.ok;
      }
      case "mode": {
        if (!value || !MODES.includes(value as SandboxMode))
          throw UsageError(`sandbox mode: choose one of ${MODES.join(", ")}`);
        const { paths } = await localSandbox();
        const edit = await setMode(paths.config, value as SandboxMode);
        await writeOut(
          edit.changed
            ? `sandbox mode is now ${value} (${paths.config}). ${LIVE_NOTE}\n`
            : `sandbox mode was already ${value}.\n`,
        );
        return EXIT.ok;
      }
      default:
        throw UsageError(`sandbox: unknown subcommand "${sub}" (status, explain, mode)`);
    }
  },
});

export default command;

function renderStatus(status: SandboxStatus & { roots_for_this_shell: string[] }): string {
  const protection =
    status.isolation === "none"
      ? "path checks only (install bubblewrap for process isolation of shell commands)"
      : `${status.isolation} isolates shell commands; path checks on every tool`;
  const lines = [
    `sandbox: ${status.mode} mode`,
    `protection: ${protection}`,
    `workspace: ${status.workspaceRoot}`,
    `granted roots: ${status.allowedRoots.length ? status.allowedRoots.join(", ") : "none"}`,
    `roots for a request from this directory: ${status.roots_for_this_shell.join(", ")}`,
  ];
  if (status.blockedRoots.length) lines.push(`blocked roots: ${status.blockedRoots.join(", ")}`);
  lines.push(
    `protected paths (denied in every mode): ${status.protectedPaths.length}, e.g. ${status.protectedPaths.slice(0, 4).join(", ")}`,
  );
  return `${lines.join("\n")}\n`;
}
