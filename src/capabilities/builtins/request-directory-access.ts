import { isAbsolute, resolve } from "node:path";
import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool } from "../tool.ts";
import { defaultDirectory } from "./_paths.ts";

export const requestDirectoryAccess = defineTool({
  name: "request_directory_access",
  description: "Ask the owner to grant a directory outside the sandbox roots that the task really needs.",
  policy: "approval",
  readOnly: false,
  attendedOperatorOnly: true,
  parameters: lazySchema(() =>
    v.object({
      path: v.pipe(v.string(), v.minLength(1)),
      reason: v.pipe(v.string(), v.minLength(1), v.maxLength(500)),
    }),
  ),
  help: "Use only after a file or shell tool was denied for being outside the roots. The owner sees the exact path, your reason and the config change, and approves with /confirm TOKEN within 60 s; the request must then be run again. Your home directory as a whole, fermix's own directory, ~/.ssh and system directories are never offered.",
  async execute(args, ctx) {
    // A relative path means the user's working directory, as for every other file tool.
    const wanted = isAbsolute(args.path) ? args.path : resolve(await defaultDirectory(ctx), args.path);
    const grantable = await ctx.sandbox.isGrantable(wanted);
    if (!grantable.ok) return { isError: true, content: `Not offered to the owner: ${grantable.reason}` };
    if ((await ctx.sandbox.checkPath(grantable.path, "write", ctx.caller)).ok) {
      return `${grantable.path} is already inside the sandbox roots; no approval is needed.`;
    }
    const { token, expiresAt } = ctx.approvals.request({
      path: grantable.path,
      reason: args.reason,
      conversation: ctx.conversation,
    });
    const seconds = Math.round((expiresAt - ctx.now()) / 1000);
    const session =
      ctx.conversation.channel === "cli"
        ? `fermix ask -s ${ctx.conversation.chat} "/confirm ${token}"`
        : `/confirm ${token}`;
    ctx.notify(
      [
        `fermix asks for access to ${grantable.path}`,
        `Reason: ${args.reason}`,
        "Approving adds it to config.toml:",
        "  [sandbox]",
        `  allowed_roots += ["${grantable.path}"]`,
        `Approve within ${seconds} s with: ${session}`,
      ].join("\n"),
    );
    return `The owner has been asked to approve access to ${grantable.path} (the request expires in ${seconds} s). Tell them briefly why it is needed; once they approve, the request can be run again.`;
  },
});
