import { join } from "node:path";
import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool } from "../tool.ts";
import { defaultDirectory, denied } from "./_paths.ts";

const MAX_MATCHES = 200;
const MAX_FILES = 20_000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;

export const contentSearch = defineTool({
  name: "content_search",
  description: "Search file contents by regular expression under a directory; returns path:line: text.",
  policy: "workspace_read",
  readOnly: true,
  parameters: lazySchema(() =>
    v.object({
      pattern: v.pipe(v.string(), v.minLength(1)),
      path: v.optional(v.string()),
      glob: v.optional(v.string()),
      case_insensitive: v.optional(v.boolean(), false),
    }),
  ),
  help: "pattern is a JavaScript regular expression. Searches the user's working directory by default, skipping .git, node_modules, binary files and files over 2 MiB; at most 200 matches.",
  async execute(args, ctx) {
    let re: RegExp;
    try {
      re = new RegExp(args.pattern, args.case_insensitive ? "i" : "");
    } catch (err) {
      return { isError: true, content: `pattern is not a valid regular expression: ${(err as Error).message}` };
    }
    const dir = await ctx.sandbox.checkPath(args.path ?? (await defaultDirectory(ctx)), "read", ctx.caller);
    if (!dir.ok) return denied(dir, ctx);
    // The walker and the glob matcher load with the first search, not with the tool list (issue 31: boot RSS,
    // the one-shot ask's import).
    const [{ globMatcher }, { walkFiles }] = await Promise.all([import("../../runtime/glob.ts"), import("./_walk.ts")]);
    const only = args.glob ? globMatcher(args.glob) : undefined;
    const matches: string[] = [];
    for await (const rel of walkFiles(dir.path, { limit: MAX_FILES, signal: ctx.signal })) {
      if (only && !only(rel)) continue;
      const read = await ctx.sandbox.readFile(join(dir.path, rel), ctx.caller, MAX_FILE_BYTES);
      if (!read.ok || read.truncated || read.bytes.includes(0)) continue;
      const lines = new TextDecoder().decode(read.bytes).split("\n");
      for (let i = 0; i < lines.length; i++) {
        if (!re.test(lines[i]!)) continue;
        matches.push(`${rel}:${i + 1}: ${lines[i]!.trim().slice(0, 300)}`);
        if (matches.length >= MAX_MATCHES) break;
      }
      if (matches.length >= MAX_MATCHES) break;
    }
    if (!matches.length) return `No matches for /${args.pattern}/ under ${dir.path}.`;
    const more = matches.length >= MAX_MATCHES ? `\n[stopped at ${MAX_MATCHES} matches; narrow the search]` : "";
    return `${matches.length} match${matches.length > 1 ? "es" : ""} under ${dir.path}:\n${matches.join("\n")}${more}`;
  },
});
