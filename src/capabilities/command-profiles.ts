import * as v from "valibot";
import type { Config } from "../config/schema.ts";
import {
  type CommandProfile,
  DEFAULT_PROFILE_TIMEOUT_SECONDS,
  MAX_PROFILE_TIMEOUT_SECONDS,
} from "../config/sections/sandbox.ts";
import { builtOnce } from "../valibot-lazy.ts";
import { formatExec } from "./builtins/_exec-result.ts";
import { defaultDirectory, denied } from "./builtins/_paths.ts";
import type { Caller } from "./caller.ts";
import { type AnyTool, defineTool } from "./tool.ts";

const MAX_OUTPUT_BYTES = 64 * 1024;
const MAX_APPENDED_ARGS = 100;
const MAX_ARG_CHARS = 4_000;

// With args = "none" the model may pass nothing at all: an extra key is refused, not ignored.
const NoArgs = builtOnce(() => v.strictObject({}));
const AppendArgs = builtOnce(() =>
  v.strictObject({
    args: v.optional(
      v.pipe(
        v.array(v.pipe(v.string(), v.maxLength(MAX_ARG_CHARS))),
        v.maxLength(MAX_APPENDED_ARGS, `at most ${MAX_APPENDED_ARGS} arguments`),
      ),
    ),
  }),
);

/** The tool name of [sandbox.commands.<name>]. */
export const commandToolName = (name: string) => `cmd_${name}`;

/**
 * One [sandbox.commands.<name>] profile as the `cmd_<name>` tool. It runs like the shell tool (the sandbox's exec:
 * minimal environment, the jail where one exists, catastrophic commands refused, the process group killed on
 * timeout) but with the owner's fixed argv, exec'd directly: the model can at most append arguments, and only
 * where the profile says `args = "append"`; no shell ever reads them.
 */
export function commandProfileTool(name: string, profile: CommandProfile): AnyTool {
  const append = profile.args === "append";
  const timeoutSeconds = profile.timeout_seconds ?? DEFAULT_PROFILE_TIMEOUT_SECONDS;
  const fixed = profile.command.join(" ");
  return defineTool({
    name: commandToolName(name),
    description: profile.description,
    policy: "exec",
    readOnly: false,
    // The sandbox enforces the profile's limit and kills the process group; this only backstops it.
    timeoutMs: (Math.min(timeoutSeconds, MAX_PROFILE_TIMEOUT_SECONDS) + 10) * 1000,
    parameters: (append ? AppendArgs() : NoArgs()) as v.GenericSchema<Record<string, unknown>, { args?: string[] }>,
    help: `The owner's command profile [sandbox.commands.${name}]: runs \`${fixed}\`${append ? " followed by the args you pass (each one argument, never read by a shell)" : " exactly as configured (it takes no arguments)"}, in the sandbox with a minimal environment, in the user's working directory (else the workspace). Timeout ${timeoutSeconds} s; output cut at 64 KiB per stream.`,
    async execute(args, ctx) {
      const argv = [...profile.command, ...(append ? (args.args ?? []) : [])];
      const verdict = ctx.sandbox.checkCommand(argv);
      if (!verdict.ok) return denied(verdict, ctx);
      const result = await ctx.sandbox.exec({
        command: argv,
        cwd: await defaultDirectory(ctx),
        caller: ctx.caller,
        timeoutMs: timeoutSeconds * 1000,
        maxOutputBytes: MAX_OUTPUT_BYTES,
        signal: ctx.signal,
      });
      if ("ok" in result) return denied(result, ctx);
      return formatExec(result, `cmd_${name}`);
    },
  });
}

/** The `cmd_<name>` tools of config.toml's [sandbox.commands] (validated at load), in the file's order. */
export function commandProfileTools(config: Config): AnyTool[] {
  return Object.entries(config.sandbox?.commands ?? {}).map(([name, profile]) => commandProfileTool(name, profile));
}

/**
 * A turn's command-profile tools, read from the turn's config (so an edited [sandbox.commands] applies from the
 * next turn): an operator's only. A guest could call none of them anyway (class exec), so none are even built.
 */
export function commandProfileSource(
  config: Config,
  caller: Pick<Caller, "trust">,
): (() => readonly AnyTool[]) | undefined {
  if (caller.trust !== "operator") return undefined;
  const tools = commandProfileTools(config);
  return tools.length ? () => tools : undefined;
}
