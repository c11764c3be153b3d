import { defineSlashCommand } from "./command.ts";

// /pause and /resume hand the cursor and keyboard back and forth during computer use, which this fermix does
// not have yet: the commands exist so the owner gets a straight answer instead of a model's guess.
const NOT_ENABLED = "Computer use is not enabled in this fermix";

export const pauseCommand = defineSlashCommand({
  name: "pause",
  access: "owner_only",
  usage: "/pause",
  summary: "pause computer use (not enabled)",
  run: () => `${NOT_ENABLED}, so there is nothing to pause.`,
});

export const resumeCommand = defineSlashCommand({
  name: "resume",
  access: "owner_only",
  usage: "/resume",
  summary: "resume computer use (not enabled)",
  run: () => `${NOT_ENABLED}, so there is nothing to resume.`,
});
