import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool } from "../tool.ts";
import { denied } from "./_paths.ts";

export const fileWrite = defineTool({
  name: "file_write",
  description: "Create or overwrite a file inside the sandbox roots with the given content.",
  policy: "workspace_write",
  readOnly: false,
  parameters: lazySchema(() =>
    v.object({
      path: v.pipe(v.string(), v.minLength(1)),
      content: v.pipe(v.string(), v.maxLength(10 * 1024 * 1024)),
    }),
  ),
  help: "Missing parent directories inside the roots are created. A symlink at the target is refused rather than followed. Use file_edit to change part of an existing file.",
  async execute(args, ctx) {
    const written = await ctx.sandbox.writeFile(args.path, args.content, ctx.caller);
    if (!written.ok) return denied(written, ctx);
    return `Wrote ${Buffer.byteLength(args.content)} bytes to ${written.path}.`;
  },
});
