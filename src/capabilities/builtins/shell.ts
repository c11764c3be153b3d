import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool } from "../tool.ts";
import { formatExec } from "./_exec-result.ts";
import { defaultDirectory, denied } from "./_paths.ts";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
const MAX_OUTPUT_BYTES = 64 * 1024;

export const shell = defineTool({
  name: "shell",
  description: "Run a shell command (sh -c) in the sandbox, in the user's working directory by default.",
  policy: "exec",
  readOnly: false,
  // The tool enforces its own (longer, caller-chosen) limit and kills the process group itself.
  timeoutMs: MAX_TIMEOUT_MS + 10_000,
  parameters: lazySchema(() =>
    v.object({
      command: v.pipe(v.string(), v.minLength(1), v.maxLength(20_000)),
      cwd: v.optional(v.string()),
      timeout_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(MAX_TIMEOUT_MS))),
    }),
  ),
  help: "Runs with a minimal environment (no credentials) and, where bubblewrap or sandbox-exec exists, with only the sandbox roots writable. Catastrophic commands (rm -rf /, mkfs, fork bombs…) are refused. Default timeout 120 s (at most 600 s); on timeout the whole process group is killed. Output is cut at 64 KiB per stream.",
  async execute(args, ctx) {
    const verdict = ctx.sandbox.checkCommand(args.command);
    if (!verdict.ok) return denied(verdict, ctx);
    const result = await ctx.sandbox.exec({
      command: args.command,
      cwd: args.cwd ?? (await defaultDirectory(ctx)),
      caller: ctx.caller,
      timeoutMs: args.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      signal: ctx.signal,
    });
    if ("ok" in result) return denied(result, ctx);
    return formatExec(result, "the command");
  },
});
