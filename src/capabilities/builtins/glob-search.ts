import { join } from "node:path";
import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool } from "../tool.ts";
import { defaultDirectory, denied } from "./_paths.ts";

const MAX_RESULTS = 500;

export const globSearch = defineTool({
  name: "glob_search",
  description: "Find files by glob pattern (e.g. **/*.ts) under a directory inside the sandbox roots.",
  policy: "workspace_read",
  readOnly: true,
  parameters: lazySchema(() =>
    v.object({
      pattern: v.pipe(v.string(), v.minLength(1)),
      path: v.optional(v.string()),
    }),
  ),
  help: "Searches the user's working directory by default. Skips .git, node_modules and similar folders unless the pattern names them; does not follow symlinks; returns at most 500 paths, sorted.",
  async execute(args, ctx) {
    const dir = await ctx.sandbox.checkPath(args.path ?? (await defaultDirectory(ctx)), "read", ctx.caller);
    if (!dir.ok) return denied(dir, ctx);
    // The glob machinery loads with the first search, not with the tool list (issue 31: boot RSS, ask's import).
    const [{ globFiles }, { SKIPPED_DIRS }] = await Promise.all([
      import("../../runtime/glob.ts"),
      import("./_walk.ts"),
    ]);
    const namesSkipped = (p: string) =>
      p.split("/").some((seg) => SKIPPED_DIRS.has(seg) && !args.pattern.includes(seg));
    const found: string[] = [];
    let more = false;
    for await (const rel of globFiles(args.pattern, {
      cwd: dir.path,
      dot: args.pattern.includes("/.") || args.pattern.startsWith("."),
    })) {
      if (ctx.signal.aborted) break;
      if (namesSkipped(rel)) continue;
      // Protected files inside a root (a .ssh in a granted tree) are not even listed.
      if (!(await ctx.sandbox.checkPath(join(dir.path, rel), "read", ctx.caller)).ok) continue;
      if (found.length >= MAX_RESULTS) {
        more = true;
        break;
      }
      found.push(rel);
    }
    if (!found.length) return `No files match ${args.pattern} under ${dir.path}.`;
    found.sort();
    return `${found.length} file${found.length > 1 ? "s" : ""} under ${dir.path}:\n${found.join("\n")}${more ? `\n[stopped at ${MAX_RESULTS}; narrow the pattern]` : ""}`;
  },
});
