import { isAbsolute, join, resolve } from "node:path";
import { sandboxStatusLines } from "../../sandbox/render-status.ts";
import type { SandboxStatus } from "../../sandbox/types.ts";
import { defineSlashCommand, type SlashContext, type SlashInput } from "./command.ts";

/*
 * The sandbox family is operator_only: a directory grant widens what the agent may touch, so no allowlist can
 * hand it to a guest (spec: "strictly operator-only and never reachable through the allowlist").
 */

export const confirmCommand = defineSlashCommand({
  name: "confirm",
  access: "operator_only",
  usage: "/confirm TOKEN",
  summary: "approve a directory access request",
  run: ({ args, ctx }) => confirm(args, ctx),
});

export const denyCommand = defineSlashCommand({
  name: "deny",
  access: "operator_only",
  usage: "/deny TOKEN",
  summary: "refuse a directory access request",
  run: ({ args, ctx }) => deny(args, ctx),
});

export const grantCommand = defineSlashCommand({
  name: "grant",
  access: "operator_only",
  usage: "/grant PATH",
  summary: "add a directory to the sandbox roots",
  run: ({ args, ctx }) => grant(args, ctx),
});

export const revokeCommand = defineSlashCommand({
  name: "revoke",
  access: "operator_only",
  usage: "/revoke PATH",
  summary: "take a directory back from the sandbox roots",
  run: ({ args, ctx }) => revoke(args, ctx),
});

const SUBCOMMANDS: Record<string, (args: string, ctx: SlashContext) => Promise<string> | string> = {
  confirm,
  deny,
  grant,
  revoke,
};

export const sandboxCommand = defineSlashCommand({
  name: "sandbox",
  access: "operator_only",
  usage: "/sandbox",
  summary: "show the sandbox mode and roots (/sandbox grant|revoke PATH, confirm|deny TOKEN)",
  run({ args, ctx }: SlashInput) {
    if (!args) return renderStatus(ctx.sandbox.status());
    const [sub = "", ...rest] = args.split(/\s+/);
    const run = SUBCOMMANDS[sub.toLowerCase()];
    if (!run) return "Usage: /sandbox, or /sandbox grant PATH | revoke PATH | confirm TOKEN | deny TOKEN.";
    return run(rest.join(" "), ctx);
  },
});

async function confirm(token: string, ctx: SlashContext): Promise<string> {
  if (!token) return "Usage: /confirm TOKEN (the token from the access request).";
  // A computer-use action waiting in a running turn answers first; any other token is a directory request's.
  const action = ctx.computerUse?.()?.approvals.confirm(token, ctx.conversation);
  if (action) return action.ok ? `Confirmed: ${action.action}. The task goes on.` : `Not confirmed: ${action.reason}.`;
  const result = ctx.approvals.confirm(token, ctx.conversation);
  if (!result.ok) return `Not confirmed: ${result.reason}.`;
  await ctx.sandbox.grant(result.path);
  // The gateway re-runs the waiting request on a reply that starts with "Granted".
  return `Granted access to ${result.path} (added to [sandbox] allowed_roots). Run your request again.`;
}

function deny(token: string, ctx: SlashContext): string {
  if (!token) return "Usage: /deny TOKEN (the token from the access request).";
  const action = ctx.computerUse?.()?.approvals.deny(token, ctx.conversation);
  if (action) return action.ok ? `Denied: ${action.action} will not happen.` : `Not denied: ${action.reason}.`;
  const result = ctx.approvals.deny(token, ctx.conversation);
  if (!result.ok) return `Not denied: ${result.reason}.`;
  return `Denied: no access to ${result.path}. The request is closed.`;
}

async function grant(path: string, ctx: SlashContext): Promise<string> {
  const absolute = absolutePath(path, ctx);
  if (!absolute.ok) return absolute.reply;
  const edit = await ctx.sandbox.grant(absolute.path);
  return edit.changed
    ? `Granted ${edit.path}: added to [sandbox] allowed_roots, in effect from the next turn.`
    : `${edit.path} was already granted.`;
}

async function revoke(path: string, ctx: SlashContext): Promise<string> {
  const absolute = absolutePath(path, ctx);
  if (!absolute.ok) return absolute.reply;
  const edit = await ctx.sandbox.revoke(absolute.path);
  return `Revoked ${edit.path}: removed from [sandbox] allowed_roots, in effect from the next turn.`;
}

/** `~/x` is the home's x; a relative path means the CLI's directory, and a chat has none. */
function absolutePath(path: string, ctx: SlashContext): { ok: true; path: string } | { ok: false; reply: string } {
  const given = path.trim();
  if (!given) return { ok: false, reply: "Usage: /grant PATH or /revoke PATH (a directory)." };
  if (given === "~" || given.startsWith("~/")) return { ok: true, path: join(ctx.sandbox.userHome, given.slice(1)) };
  if (isAbsolute(given)) return { ok: true, path: resolve(given) };
  if (ctx.caller.cwd) return { ok: true, path: resolve(ctx.caller.cwd, given) };
  return { ok: false, reply: `Give an absolute path (or ~/…): "${given}" is relative, and a chat has no directory.` };
}

/** `fermix sandbox`'s status, without the lines about a shell's directory. */
function renderStatus(status: SandboxStatus): string {
  const lines = sandboxStatusLines(status);
  if (status.blockedRoots.length) lines.push(`blocked roots: ${status.blockedRoots.join(", ")}`);
  lines.push("/grant PATH adds a directory; /revoke PATH takes one back.");
  return lines.join("\n");
}
