import { defineSlashCommand, type SlashContext } from "./command.ts";

/*
 * /pause and /resume hand the mouse and keyboard back and forth during computer use (spec: self-knowledge.md,
 * "Computer use"): /pause holds the running task's next action (the turn waits, the session stays), /resume lets
 * it go on, /stop ends it. Answered at once, never behind the turn they act on (gateway.ts answers slash commands
 * at ingress; local-ask.ts does the same for the CLI).
 */

// Computer use is loaded once [fermix_core.computer_use] enabled is true and something needed it.
const NOT_RUNNING = "Computer use is not enabled in this fermix";

export const pauseCommand = defineSlashCommand({
  name: "pause",
  access: "owner_only",
  usage: "/pause",
  summary: "pause computer use: its next action waits until /resume",
  run: ({ ctx }) => pause(ctx),
});

export const resumeCommand = defineSlashCommand({
  name: "resume",
  access: "owner_only",
  usage: "/resume",
  summary: "let a paused computer-use task go on",
  run: ({ ctx }) => resume(ctx),
});

function pause(ctx: SlashContext): string {
  const computerUse = ctx.computerUse?.();
  if (!computerUse) return `${NOT_RUNNING}, so there is nothing to pause.`;
  if (computerUse.sessions.pause(ctx.conversation) === "already_paused") {
    const held = computerUse.sessions.holding(ctx.conversation) ? " (an action is waiting)" : "";
    return `Computer use is already paused here${held}; /resume lets it go on.`;
  }
  return "Paused: the next computer-use action here waits, and the mouse and keyboard are yours. /resume goes on; /stop ends the task.";
}

function resume(ctx: SlashContext): string {
  const computerUse = ctx.computerUse?.();
  if (!computerUse) return `${NOT_RUNNING}, so there is nothing to resume.`;
  if (computerUse.sessions.resume(ctx.conversation) === "not_paused") return "Computer use is not paused here.";
  return "Resumed: computer use goes on from its next action.";
}
