import { defineSlashCommand } from "./command.ts";

export const newCommand = defineSlashCommand({
  name: "new",
  aliases: ["clear"],
  access: "everyone",
  usage: "/new",
  summary: "start a fresh conversation (earlier messages stay searchable)",
  run({ ctx }) {
    const setAside = ctx.startFresh();
    if (!setAside) return "This conversation has no earlier messages in context: it is already fresh.";
    // Nothing is deleted: recall and history search still find the earlier messages.
    return `Started a new conversation. The ${setAside} earlier message${setAside === 1 ? "" : "s"} stay in memory, where recall can still find them, but the next turn no longer sees them.`;
  },
});

export const compactCommand = defineSlashCommand({
  name: "compact",
  access: "owner_only",
  usage: "/compact",
  summary: "fold this conversation's older turns into a summary now",
  run({ ctx }) {
    return ctx.compact ? ctx.compact() : "Compaction is not available here.";
  },
});

/**
 * /stop is the gateway's (at ingress: it must not wait in the queue it clears; see gateway.ts). Declared here so
 * /help lists it for the owner and so `fermix ask "/stop"` gets a sentence rather than a model's guess.
 */
export const stopCommand = defineSlashCommand({
  name: "stop",
  // The gateway refuses it to guests whatever the allowlist says: it stops the owner's work too.
  access: "operator_only",
  usage: "/stop",
  summary: "stop every running turn, queued message and background task",
  surfaces: ["chat"],
  run({ ctx }) {
    if (ctx.surface === "chat") return "Nothing to stop here.";
    return "/stop is for chat channels, where it stops every running turn and background task. From the terminal, press Ctrl-C to stop an ask; `fermix stop` stops the daemon.";
  },
});
