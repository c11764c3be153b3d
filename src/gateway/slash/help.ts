import { defineSlashCommand } from "./command.ts";

export const helpCommand = defineSlashCommand({
  name: "help",
  access: "everyone",
  usage: "/help",
  summary: "the commands you can use here",
  run({ usable }) {
    const lines = usable.map((c) => {
      const aliases = c.aliases?.length ? ` (also ${c.aliases.map((a) => `/${a}`).join(", ")})` : "";
      return `${c.usage}${aliases} — ${c.summary}`;
    });
    return ["Commands you can use here:", ...lines, "Anything else that starts with / goes to the model as text."].join(
      "\n",
    );
  },
});

export const whoamiCommand = defineSlashCommand({
  name: "whoami",
  access: "everyone",
  usage: "/whoami",
  summary: "who fermix takes you for here",
  run({ ctx }) {
    const { caller, conversation } = ctx;
    const trust =
      caller.trust === "operator"
        ? "owner"
        : "guest (chat only: no tools that touch the owner's files, network, jobs or memory)";
    const sender = ctx.senderId ?? (ctx.surface === "cli" ? "this machine (the local CLI)" : "unknown");
    return [
      `trust: ${trust}`,
      `channel: ${conversation.channel}`,
      `chat: ${conversation.chat}${ctx.surface === "cli" ? " (the -s session)" : ""}`,
      ...(conversation.thread ? [`thread: ${conversation.thread}`] : []),
      `sender: ${sender}`,
    ].join("\n");
  },
});
