import type { RunProfile } from "../../agent/run-profile.ts";
import type { Caller } from "../../capabilities/caller.ts";
import type { DirectoryApprovals } from "../../capabilities/directory-approvals.ts";
import type { ComputerUse } from "../../computer-use/computer-use.ts";
import type { ConversationKey } from "../../memory/messages-contract.ts";
import type { SandboxStatus } from "../../sandbox/types.ts";
import type { SkillCatalog } from "../../skills/catalog.ts";
import type { UsageDeps } from "../../usage/app-usage.ts";
import type { BackgroundTasks } from "./background-tasks-contract.ts";
import type { SoulDeps } from "./soul-deps.ts";

/**
 * Who may run a command (channels-facts §3):
 * - `everyone`: any authorized sender, for their own conversation;
 * - `owner_only`: the owner, or a guest whose channel lists the command in `command_allowlist`;
 * - `operator_only`: the owner in person, whatever the allowlist says (sandbox changes, approvals, /stop).
 */
export type SlashAccess = "everyone" | "owner_only" | "operator_only";

/** A command's answer: a reply, or the text to run as a turn instead (/ultra's prompt with its run profile). */
export type SlashAnswer = string | { turn: { text: string; runProfile: RunProfile } };

/** What the sandbox commands change: config.toml's [sandbox] table, live from the next turn. */
export type SlashSandbox = {
  status(): SandboxStatus;
  /** Adds a directory to allowed_roots after the sandbox accepts it; throws a FermixError saying why not. */
  grant(path: string): Promise<{ path: string; changed: boolean }>;
  /** Removes a granted root; throws a FermixError listing the granted ones when it is not one of them. */
  revoke(path: string): Promise<{ path: string }>;
  /** For `~/…` in a path. */
  userHome: string;
};

/** Chat channels only: work that runs detached from the conversation's queue and reports back later. */
export type SlashBackground = {
  tasks: BackgroundTasks;
  /** One turn in this conversation, unattended and outside its queue; resolves with the reply. */
  run(text: string, signal: AbortSignal): Promise<string>;
  /** Sends a message to this chat (the result, when the work is done). */
  post(text: string): Promise<void>;
};

/** Everything a command may use, passed in by the app (app.ts slashContext). */
export type SlashContext = {
  caller: Caller;
  conversation: ConversationKey;
  /** `chat`: a channel message; `cli`: `fermix ask -s ID "/…"` on this machine. */
  surface: "chat" | "cli";
  /** The sender's platform id (chat only), for /whoami. */
  senderId?: string;
  /** The channel's command_allowlist: owner-only commands a guest may use. */
  commandAllowlist?: readonly string[];
  approvals: DirectoryApprovals;
  /** Computer use once it runs in this process (/pause, /resume, its approvals); undefined while it does not. */
  computerUse?: () => Pick<ComputerUse, "sessions" | "approvals"> | undefined;
  sandbox: SlashSandbox;
  /** /new: the next turn starts without this conversation's history (which stays stored); how many messages it set aside. */
  startFresh(): number;
  /** Folds the conversation's older turns into a summary now; returns what happened, for the owner. */
  compact?(): Promise<string>;
  skills?: Pick<SkillCatalog, "load">;
  /** SOUL.md's curation (opened on use: most commands never touch memory.db). */
  soul?(): SoulDeps;
  background?: SlashBackground;
  /** /usage: the usage ledger (opened on use, like /soul's memory.db). */
  usage?(): UsageDeps;
};

export type SlashInput = {
  /** The name as typed, lower-cased (an alias stays an alias: `/bg`). */
  invokedAs: string;
  /** Everything after the name, trimmed. */
  args: string;
  ctx: SlashContext;
  /** The commands this caller may use here, for /help. */
  usable: readonly SlashCommand[];
};

export type SlashCommand = {
  name: string;
  aliases?: readonly string[];
  access: SlashAccess;
  /** How /help shows its arguments: `/grant PATH`. */
  usage: string;
  /** What it does, for /help: one short line. */
  summary: string;
  /** Listed in /help only on these surfaces (default both); typing it elsewhere still gets an explanation. */
  surfaces?: readonly SlashContext["surface"][];
  run(input: SlashInput): SlashAnswer | Promise<SlashAnswer>;
};

/** Declares a slash command; one registry line in slash.ts makes it live. */
export function defineSlashCommand(command: SlashCommand): SlashCommand {
  return command;
}
