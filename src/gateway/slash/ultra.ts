import { defineSlashCommand } from "./command.ts";

/** The prompt runs as this conversation's next normal turn, in its queue, tagged with the ultra run profile. */
export const ultraCommand = defineSlashCommand({
  name: "ultra",
  access: "owner_only",
  usage: "/ultra PROMPT",
  summary: "answer exhaustively: a turn with many more subagents",
  run({ args }) {
    if (!args) return "Usage: /ultra <prompt>";
    return { turn: { text: args, runProfile: "ultra" } };
  },
});
