import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

/** `cmd_` + name must stay within a provider's 64-character tool-name limit. */
export const MAX_PROFILE_NAME = 60;
export const DEFAULT_PROFILE_TIMEOUT_SECONDS = 120;
/** The shell tool's own ceiling: a profile is a shortcut, not a way past it. */
export const MAX_PROFILE_TIMEOUT_SECONDS = 600;

/** The `<name>` of [sandbox.commands.<name>]: the tool is `cmd_<name>`, so only what a tool name can hold. */
export const CommandProfileName = lazySchema(() =>
  v.pipe(
    v.string(),
    v.regex(/^[a-z0-9_]+$/, "a name of lowercase letters, digits and _ only (the tool is cmd_<name>)"),
    v.maxLength(MAX_PROFILE_NAME, `a name of at most ${MAX_PROFILE_NAME} characters (the tool is cmd_<name>)`),
  ),
);

/**
 * One [sandbox.commands.<name>] block: a fixed argv the owner vouches for, offered to the model as a tool.
 * `args = "append"` lets the model add arguments after the fixed ones; the argv is never given to a shell.
 */
// `check` rather than minLength: the error then shows the value given, not its length.
const REQUIRED = 'a table with command = ["program", "fixed", "args"] and description = "…" (both required)';
const ARGV = 'a non-empty list: the program and its fixed arguments, e.g. ["git", "status"]';
const DESCRIPTION = "a one-line description: what the command does, for the model";
export const CommandProfile = lazySchema(() =>
  v.strictObject(
    {
      command: v.pipe(
        v.array(
          v.pipe(
            v.string(),
            v.check((s) => s.length > 0, "non-empty strings"),
          ),
        ),
        v.check((argv) => argv.length > 0, ARGV),
      ),
      description: v.pipe(
        v.string(DESCRIPTION),
        v.check((s) => s.trim().length > 0, DESCRIPTION),
        v.trim(),
      ),
      args: v.optional(v.picklist(["none", "append"], '"none" (the default) or "append"')),
      timeout_seconds: v.optional(
        v.pipe(
          v.number("a whole number of seconds"),
          v.integer("a whole number of seconds"),
          v.minValue(1, `a whole number of seconds from 1 to ${MAX_PROFILE_TIMEOUT_SECONDS}`),
          v.maxValue(MAX_PROFILE_TIMEOUT_SECONDS, `a whole number of seconds from 1 to ${MAX_PROFILE_TIMEOUT_SECONDS}`),
        ),
      ),
    },
    REQUIRED,
  ),
);
export type CommandProfile = v.InferOutput<typeof CommandProfile>;

export const CommandProfiles = lazySchema(() => v.record(CommandProfileName, CommandProfile));

/** [sandbox]: how far the tools reach outside the workspace, and the command profiles the owner adds. */
export const SandboxSection = lazySchema(() =>
  v.strictObject({
    mode: v.optional(v.picklist(["strict", "standard", "open"])),
    workspace_root: v.optional(v.string()),
    allowed_roots: v.optional(v.array(v.string())),
    blocked_roots: v.optional(v.array(v.string())),
    // [sandbox.commands.<name>]: command profiles, each a cmd_<name> tool (src/capabilities/command-profiles.ts).
    commands: v.optional(CommandProfiles),
  }),
);
