import { defineError, FermixError } from "../error.ts";
import { CANNED } from "./canned-replies.ts";
import { backgroundCommand, tasksCommand } from "./slash/background.ts";
import type { SlashAnswer, SlashCommand, SlashContext } from "./slash/command.ts";
import { pauseCommand, resumeCommand } from "./slash/computer-use.ts";
import { compactCommand, newCommand, stopCommand } from "./slash/conversation.ts";
import { helpCommand, whoamiCommand } from "./slash/help.ts";
import { confirmCommand, denyCommand, grantCommand, revokeCommand, sandboxCommand } from "./slash/sandbox.ts";
import { skillsCommand } from "./slash/skills.ts";
import { soulCommand } from "./slash/soul.ts";
import { ultraCommand } from "./slash/ultra.ts";
import { usageCommand } from "./slash/usage.ts";

export type { SlashAnswer, SlashContext } from "./slash/command.ts";

export const SlashRegistryInvalid = defineError<{ name: string }>("slash_registry_invalid");

/** A command name after lower-casing (channels-facts §3); anything else is text for the model. */
const NAME = /^[a-z][a-z0-9_]*$/;

/** In /help's order. */
const COMMANDS: readonly SlashCommand[] = [
  helpCommand,
  whoamiCommand,
  newCommand,
  compactCommand,
  stopCommand,
  sandboxCommand,
  usageCommand,
  confirmCommand,
  denyCommand,
  grantCommand,
  revokeCommand,
  skillsCommand,
  soulCommand,
  backgroundCommand,
  tasksCommand,
  ultraCommand,
  pauseCommand,
  resumeCommand,
];

/** Splits `/name rest` off; undefined when the first token is not a command name (`/etc/hosts is…`). */
export function parseSlash(text: string): { name: string; args: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  if (!NAME.test(name)) return undefined;
  return { name, args: (match[2] ?? "").trim() };
}

/** Whether this caller may run `command` here; the allowlist never reaches an operator_only command. */
export function mayUse(command: SlashCommand, ctx: Pick<SlashContext, "caller" | "commandAllowlist">): boolean {
  const owner = ctx.caller.trust === "operator";
  switch (command.access) {
    case "everyone":
      return true;
    case "operator_only":
      // Approvals and sandbox changes also want the owner present: never a detached or scheduled run.
      return owner && ctx.caller.attended;
    case "owner_only":
      return owner || allowlisted(command, ctx.commandAllowlist ?? []);
  }
}

/** An allowlist entry names the command or one of its aliases, with or without the slash. */
function allowlisted(command: SlashCommand, allowlist: readonly string[]): boolean {
  const names = new Set([command.name, ...(command.aliases ?? [])]);
  return allowlist.some((entry) => names.has(entry.trim().replace(/^\//, "").toLowerCase()));
}

/** The commands by name and alias; a name declared twice is a programming error, refused when the registry loads. */
export function createSlashRegistry(commands: readonly SlashCommand[]) {
  const byName = new Map<string, SlashCommand>();
  for (const command of commands) {
    for (const name of [command.name, ...(command.aliases ?? [])]) {
      if (!NAME.test(name)) throw SlashRegistryInvalid(`slash command name /${name} is not ${NAME.source}`, { name });
      const taken = byName.get(name);
      if (taken) {
        throw SlashRegistryInvalid(
          `slash command /${name} is declared twice (by /${taken.name} and /${command.name})`,
          {
            name,
          },
        );
      }
      byName.set(name, command);
    }
  }

  return {
    commands,
    find: (name: string) => byName.get(name),

    /**
     * The answer to a command, or undefined when the text is not one fermix knows (it then reaches the model as
     * ordinary text). A FermixError from a command (a refused grant, no provider for /soul review) is its reply.
     */
    async handle(text: string, ctx: SlashContext): Promise<SlashAnswer | undefined> {
      const parsed = parseSlash(text);
      const command = parsed && byName.get(parsed.name);
      if (!parsed || !command) return undefined;
      if (!mayUse(command, ctx)) return CANNED.ownerOnly;
      const usable = commands.filter((c) => mayUse(c, ctx) && (c.surfaces ?? [ctx.surface]).includes(ctx.surface));
      try {
        return await command.run({ invokedAs: parsed.name, args: parsed.args, ctx, usable });
      } catch (err) {
        if (err instanceof FermixError) return err.message;
        throw err;
      }
    },
  };
}

const registry = createSlashRegistry(COMMANDS);

/**
 * Slash commands run before the agent: they never reach a model (except /soul review's one bounded call, and
 * /ultra, whose prompt becomes a turn). Returns the answer, or undefined when the text is not a command fermix
 * handles. /stop is the gateway's, at ingress; it is listed here for /help and for the CLI.
 */
export function handleSlash(text: string, ctx: SlashContext): Promise<SlashAnswer | undefined> {
  return registry.handle(text, ctx);
}
