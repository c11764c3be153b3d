import type { Caller } from "../../capabilities/caller.ts";
import type { DirectoryApprovals } from "../../capabilities/directory-approvals.ts";
import type { ComputerUse } from "../../computer-use/computer-use.ts";
import { grantPath, revokePath } from "../../config/sandbox-edit.ts";
import type { ConversationKey, MessageStore } from "../../memory/messages-contract.ts";
import type { Sandbox } from "../../sandbox/types.ts";
import type { SkillCatalog } from "../../skills/catalog.ts";
import type { UsageDeps } from "../../usage/app-usage.ts";
import type { BackgroundTasks } from "./background-tasks-contract.ts";
import type { SlashContext } from "./command.ts";
import type { SoulDeps } from "./soul-deps.ts";

/** Where a slash command came from: a chat message (the gateway's SlashRequest) or a CLI ask. */
export type SlashOrigin = {
  caller: Caller;
  conversation: ConversationKey;
  /** Set for a chat message; a CLI ask has none of these. */
  senderId?: string;
  access?: { commandAllowlist: readonly string[] };
  post?: (text: string) => Promise<void>;
};

export type SlashContextDeps = {
  approvals: DirectoryApprovals;
  /** The sandbox as config.toml says now. */
  sandbox: () => Sandbox;
  configFile: string;
  userHome: string;
  store: Pick<MessageStore, "startFresh">;
  skills: SkillCatalog;
  soul: () => SoulDeps;
  /** /usage's ledger and config (memory.db opened on use). */
  usage?: () => UsageDeps;
  /** This process's /background work, across chats; /stop ends it with the turns. */
  background: BackgroundTasks;
  /** One unattended turn outside the conversation's lane (it would hold up the chat); resolves with the reply. */
  detached(input: { key: ConversationKey; text: string; caller: Caller; signal: AbortSignal }): Promise<string>;
  /** /compact: folds the conversation's older turns now. */
  compact(
    key: ConversationKey,
  ): Promise<{ compacted: true; foldedMessages: number } | { compacted: false; reason: string }>;
  /** The daemon's parts that commands reach: computer use, for /pause, /resume and its /confirm and /deny. */
  parts?: { computerUse: { current(): ComputerUse | undefined } };
};

/** What a slash command may use, for one message: the app's services bound to where the command came from. */
export function createSlashContexts(deps: SlashContextDeps): (origin: SlashOrigin) => SlashContext {
  return (origin) => ({
    caller: origin.caller,
    conversation: origin.conversation,
    surface: origin.access ? "chat" : "cli",
    senderId: origin.senderId,
    commandAllowlist: origin.access?.commandAllowlist,
    approvals: deps.approvals,
    computerUse: () => deps.parts?.computerUse.current(),
    sandbox: {
      status: () => deps.sandbox().status(),
      grant: async (path) => {
        const edit = await grantPath(deps.configFile, path, (p) => deps.sandbox().isGrantable(p));
        deps.sandbox();
        return { path: edit.path, changed: edit.changed };
      },
      revoke: async (path) => {
        const edit = await revokePath(deps.configFile, path, { userHome: deps.userHome });
        deps.sandbox();
        return { path: edit.path };
      },
      userHome: deps.userHome,
    },
    startFresh: () => deps.store.startFresh(origin.conversation),
    skills: deps.skills,
    soul: deps.soul,
    usage: deps.usage,
    // Detached work needs somewhere to post its result: chat channels only.
    background: origin.post && {
      tasks: deps.background,
      // Unattended: nobody answers its prompts.
      run: (text, signal) =>
        deps.detached({ key: origin.conversation, text, caller: { ...origin.caller, attended: false }, signal }),
      post: origin.post,
    },
    compact: async () => {
      const done = await deps.compact(origin.conversation);
      return done.compacted
        ? `Compacted: ${done.foldedMessages} earlier messages are now a summary.`
        : `Nothing compacted: ${done.reason}.`;
    },
  });
}
