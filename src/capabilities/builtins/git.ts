import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";
import { formatExec } from "./_exec-result.ts";
import { defaultDirectory, denied } from "./_paths.ts";

const READ_COMMANDS = new Set([
  "status",
  "diff",
  "log",
  "show",
  "blame",
  "branch",
  "ls-files",
  "rev-parse",
  "grep",
  "describe",
  "shortlog",
  "tag",
]);
// No push, fetch, pull, clone, remote, submodule or config: nothing that talks to the network or rewires the repo.
const WRITE_COMMANDS = new Set([
  "add",
  "commit",
  "checkout",
  "switch",
  "restore",
  "reset",
  "stash",
  "mv",
  "rm",
  "tag",
  "branch",
  "merge",
  "cherry-pick",
  "revert",
  "init",
]);
// Options that would let a "read" write files, run programs or read outside the repo.
const FORBIDDEN_OPTIONS =
  /^(--output|--ext-diff|--exec|--upload-pack|--receive-pack|--git-dir|--work-tree|--config-env|-c$|-C$|--no-index)/;

const Args = lazySchema(() =>
  v.object({
    args: v.pipe(v.array(v.string()), v.minLength(1, 'args must start with the git subcommand, e.g. ["status"]')),
    cwd: v.optional(v.string()),
  }),
);

async function runGit(
  args: string[],
  cwd: string | undefined,
  allowed: Set<string>,
  ctx: ToolContext,
): Promise<ToolResult> {
  const [sub, ...rest] = args;
  if (!sub || !allowed.has(sub)) {
    return {
      isError: true,
      content: `git ${sub ?? ""} is not allowed here; allowed: ${[...allowed].sort().join(", ")}`,
    };
  }
  const bad = rest.find((a) => FORBIDDEN_OPTIONS.test(a));
  if (bad) return { isError: true, content: `the option ${bad} is not allowed` };
  const result = await ctx.sandbox.exec({
    command: ["git", "--no-pager", sub, ...rest],
    cwd: cwd ?? (await defaultDirectory(ctx)),
    caller: ctx.caller,
    timeoutMs: 60_000,
    maxOutputBytes: 64 * 1024,
    signal: ctx.signal,
    env: { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", GIT_OPTIONAL_LOCKS: "0" },
  });
  if ("ok" in result) return denied(result, ctx);
  return formatExec(result, `git ${sub}`);
}

export const gitRead = defineTool({
  name: "git_read",
  description: "Inspect a git repository: status, diff, log, show, blame, branch, ls-files, grep…",
  policy: "workspace_read",
  readOnly: true,
  parameters: Args,
  help: `args is the argument list after "git", starting with one of: ${[...READ_COMMANDS].join(", ")}. Runs in the user's working directory by default.`,
  execute: (args, ctx) => runGit(args.args, args.cwd, READ_COMMANDS, ctx),
});

export const gitWrite = defineTool({
  name: "git_write",
  description: "Change a git repository locally: add, commit, checkout, switch, restore, stash, merge… (never push).",
  policy: "workspace_write",
  readOnly: false,
  parameters: Args,
  help: `args starts with one of: ${[...WRITE_COMMANDS].join(", ")}. Nothing that talks to a remote (push, fetch, pull, clone) is available.`,
  execute: (args, ctx) => runGit(args.args, args.cwd, WRITE_COMMANDS, ctx),
});
