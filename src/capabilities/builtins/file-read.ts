import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool } from "../tool.ts";
import { denied } from "./_paths.ts";

const MAX_FILE_BYTES = 5 * 1024 * 1024;
const DEFAULT_LINES = 2000;
const MAX_LINE_CHARS = 2000;

export const fileRead = defineTool({
  name: "file_read",
  description: "Read a text file inside the sandbox roots, with line numbers (offset/limit for long files).",
  policy: "workspace_read",
  readOnly: true,
  parameters: lazySchema(() =>
    v.object({
      path: v.pipe(v.string(), v.minLength(1)),
      offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)), DEFAULT_LINES),
    }),
  ),
  help: "Relative paths resolve against the user's working directory. Files over 5 MiB are cut; binary files are described, not dumped. Paths outside the sandbox roots and protected paths (~/.ssh, credentials, fermix internals) are denied.",
  async execute(args, ctx) {
    const read = await ctx.sandbox.readFile(args.path, ctx.caller, MAX_FILE_BYTES);
    if (!read.ok) return denied(read, ctx);
    if (read.bytes.includes(0)) return `${read.path} is a binary file (${read.bytes.byteLength} bytes); not shown.`;
    const lines = new TextDecoder().decode(read.bytes).split("\n");
    if (lines.at(-1) === "") lines.pop();
    const start = args.offset - 1;
    const shown = lines.slice(start, start + args.limit);
    const body = shown
      .map(
        (line, i) =>
          `${String(start + i + 1).padStart(6)}\t${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line}`,
      )
      .join("\n");
    const notes: string[] = [];
    if (start + shown.length < lines.length)
      notes.push(`lines ${start + 1}-${start + shown.length} of ${lines.length}; use offset to read on`);
    if (read.truncated) notes.push("file cut at 5 MiB");
    if (!lines.length) return `${read.path} is empty.`;
    return `${read.path}\n${body}${notes.length ? `\n[${notes.join("; ")}]` : ""}`;
  },
});
