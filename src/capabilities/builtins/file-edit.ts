import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool } from "../tool.ts";
import { denied } from "./_paths.ts";

export const fileEdit = defineTool({
  name: "file_edit",
  description: "Replace an exact piece of text in a file (unique match, or every match with replace_all).",
  policy: "workspace_write",
  readOnly: false,
  parameters: lazySchema(() =>
    v.object({
      path: v.pipe(v.string(), v.minLength(1)),
      old_string: v.pipe(v.string(), v.minLength(1, "old_string must not be empty; use file_write for new files")),
      new_string: v.string(),
      replace_all: v.optional(v.boolean(), false),
    }),
  ),
  help: "old_string must match the file exactly, whitespace included. When it occurs more than once, add surrounding lines to make it unique or set replace_all. Returns the diff of the change.",
  async execute(args, ctx) {
    const read = await ctx.sandbox.readFile(args.path, ctx.caller, 10 * 1024 * 1024);
    if (!read.ok) return denied(read, ctx);
    const before = new TextDecoder().decode(read.bytes);
    const count = before.split(args.old_string).length - 1;
    if (count === 0)
      return {
        isError: true,
        content: `old_string was not found in ${read.path}; read the file and copy the text exactly.`,
      };
    if (count > 1 && !args.replace_all) {
      return {
        isError: true,
        content: `old_string occurs ${count} times in ${read.path}; include more surrounding text to make it unique, or set replace_all.`,
      };
    }
    if (args.old_string === args.new_string)
      return { isError: true, content: "old_string and new_string are the same; nothing to change." };
    const after = args.replace_all
      ? before.split(args.old_string).join(args.new_string)
      : before.replace(args.old_string, () => args.new_string);
    // The differ loads with the first edit, not with the tool list (issue 31: boot RSS, the one-shot ask's import);
    // before the write, so the edit it reports is never one already made.
    const { lineDiff } = await import("./line-diff.ts");
    const written = await ctx.sandbox.writeFile(read.path, after, ctx.caller);
    if (!written.ok) return denied(written, ctx);
    return `Edited ${written.path} (${count} replacement${count > 1 ? "s" : ""}):\n${lineDiff(before, after, written.path)}`;
  },
});
