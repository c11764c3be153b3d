import { defineSlashCommand } from "./command.ts";

const CLI_ONLY_NOTE =
  "Background work is for chat channels, where the result is posted to the chat when it is done. From the terminal, run the request as an ordinary `fermix ask` (in another shell, or with `&`).";

export const backgroundCommand = defineSlashCommand({
  name: "background",
  aliases: ["bg"],
  access: "owner_only",
  usage: "/background PROMPT",
  summary: "run a request in the background and post the result here",
  surfaces: ["chat"],
  run({ invokedAs, args, ctx }) {
    const background = ctx.background;
    if (!background) return CLI_ONLY_NOTE;
    if (!args) return `Usage: /${invokedAs} <prompt>`;
    const started = background.tasks.start({
      conversation: ctx.conversation,
      command: `/${invokedAs}`,
      prompt: args,
      run: (signal) => background.run(args, signal),
      post: (text) => background.post(text),
    });
    if (!started.ok) return started.reason;
    return `Started background work ${started.id}. I'll post the result here when it's done — /tasks to check, /stop to cancel.`;
  },
});

export const tasksCommand = defineSlashCommand({
  name: "tasks",
  access: "owner_only",
  usage: "/tasks",
  summary: "the background work of this chat",
  surfaces: ["chat"],
  run({ ctx }) {
    if (!ctx.background) return CLI_ONLY_NOTE;
    const tasks = ctx.background.tasks.list(ctx.conversation);
    if (!tasks.length) return "No background work.";
    return tasks.map((t) => `• ${t.id} [${t.status}] ${t.command}: ${preview(t.prompt)}`).join("\n");
  },
});

function preview(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
