import { setMode } from "../config/sandbox-edit.ts";
import { sandboxStatusLines } from "../sandbox/render-status.ts";
import type { SandboxMode, SandboxStatus } from "../sandbox/types.ts";
import { LIVE_NOTE, localSandbox } from "./_sandbox.ts";
import { defineCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";
import { answerQuery } from "./query.ts";

export const MODES: readonly SandboxMode[] = ["strict", "standard", "open"];

export default defineCommand({
  meta: {
    name: "sandbox",
    description: "Show, explain or change what the agent's tools may touch",
  },
  default: "status",
  subCommands: {
    status: defineCommand({
      meta: { name: "status", description: "Show the mode, the isolation in use, and the granted and blocked roots" },
      args: { json: { type: "boolean", description: "print the typed JSON envelope" } },
      async run({ args }) {
        const { sandbox, caller } = await localSandbox();
        return answerQuery({
          json: args.json === true,
          query: async () => ({ ...sandbox.status(), roots_for_this_shell: sandbox.roots(caller) }),
          render: renderStatus,
        });
      },
    }),
    explain: defineCommand({
      meta: {
        name: "explain",
        description: "Explain how one path is judged for reading and writing, and why",
        examples: ["fermix sandbox explain ~/.ssh/id_rsa"],
      },
      args: { path: { type: "positional", required: true, valueHint: "PATH", description: "the path to explain" } },
      async run({ args }) {
        const { sandbox, caller } = await localSandbox();
        await writeOut(`${(await sandbox.explain(args.path, caller)).trimEnd()}\n`);
        return EXIT.ok;
      },
    }),
    mode: defineCommand({
      meta: { name: "mode", description: "Change the sandbox mode in config.toml, keeping its comments" },
      args: {
        mode: { type: "positional", required: true, valueHint: "strict|standard|open", description: "the new mode" },
      },
      async run({ args }) {
        const value = args.mode as SandboxMode;
        if (!MODES.includes(value)) throw UsageError(`sandbox mode: choose one of ${MODES.join(", ")}`);
        const { paths } = await localSandbox();
        const edit = await setMode(paths.config, value);
        await writeOut(
          edit.changed
            ? `sandbox mode is now ${value} (${paths.config}). ${LIVE_NOTE}\n`
            : `sandbox mode was already ${value}.\n`,
        );
        return EXIT.ok;
      },
    }),
  },
});

function renderStatus(status: SandboxStatus & { roots_for_this_shell: string[] }): string {
  const lines = [
    ...sandboxStatusLines(status),
    `roots for a request from this directory: ${status.roots_for_this_shell.join(", ")}`,
  ];
  if (status.blockedRoots.length) lines.push(`blocked roots: ${status.blockedRoots.join(", ")}`);
  lines.push(
    `protected paths (denied in every mode): ${status.protectedPaths.length}, e.g. ${status.protectedPaths.slice(0, 4).join(", ")}`,
  );
  return `${lines.join("\n")}\n`;
}
