import type { CommandDef } from "citty";
import { FermixError } from "../error.ts";
import { parseArgs } from "./args.ts";
import type { EarlyAsk } from "./ask-early.ts";
import type { Chain } from "./chain.ts";
import { resolveValue } from "./command.ts";
import { asksForHelp } from "./help-request.ts";
import { writeErr, writeOut } from "./output.ts";

/**
 * What a verb's run finds in citty's `data`: how it was reached (help and completion start at the root), and what the
 * entry already did for it (src/main.ts: `early`, ask's request sent before the tree loaded).
 */
export type RunData = { chain: Chain; io: HelpIo } & FromEntry;
export type FromEntry = { early?: EarlyAsk };

/** Where help and usage go; tests pass their own. A verb's own output does not pass here. */
export type HelpIo = { out(text: string): Promise<void>; err(text: string): Promise<void> };
const STDIO: HelpIo = { out: writeOut, err: writeErr };

/**
 * argv → the command it names → its exit code. Walks the tree one word at a time, loading only the verbs on
 * the way (a sibling's code never loads); `--help`/`-h` anywhere before `--` prints the help of the deepest
 * command named; a group run without a subcommand uses its `default` or prints its usage (exit 2).
 * Options given before a subcommand's word travel with it (`plugins --json list` is `plugins list --json`).
 */
export async function runCli(
  root: CommandDef<any>,
  argv: string[],
  io: HelpIo = STDIO,
  fromEntry: FromEntry = {},
): Promise<number> {
  const top: Chain = [{ name: "fermix", cmd: root }];
  if (!argv.length) return showHelp(top, io.err, 2);
  if (asksForHelp(argv)) return showHelp((await walk(root, argv, { for: "help", lenient: true })).chain, io.out);
  let walked: Awaited<ReturnType<typeof walk>>;
  try {
    walked = await walk(root, argv, { for: "run", lenient: false });
  } catch (err) {
    if (!(err instanceof FermixError && err.code === "usage" && err.data.command === "")) throw err;
    // An unknown verb: the whole usage, since the verb is not there to say more.
    await io.err(`fermix: ${err.message}\n`);
    return showHelp(top, io.err, 2);
  }
  const { chain, rawArgs } = walked;
  const { cmd } = chain.at(-1)!;
  if ((await subCommands(cmd)) && !cmd.run) return showHelp(chain, io.err, 2);
  const meta = await resolveValue(cmd.meta ?? {});
  const path = pathOf(chain);
  try {
    const args = parseArgs(
      rawArgs,
      await resolveValue(cmd.args ?? {}),
      path,
      meta.takesWords === true,
      meta.repeatable,
    );
    const context = { rawArgs, args: args as never, cmd, data: { chain, io, ...fromEntry } satisfies RunData };
    await cmd.setup?.(context);
    try {
      return (await cmd.run?.(context)) ?? 0;
    } finally {
      await cmd.cleanup?.(context);
    }
  } catch (err) {
    // A usage error is answered with the help of the command it came from.
    if (err instanceof FermixError && err.code === "usage" && err.data.command === undefined) {
      throw new FermixError("usage", err.message, { ...err.data, command: path });
    }
    throw err;
  }
}

/** "plugins auth set": the words after `fermix` that named the command. */
function pathOf(chain: Chain): string {
  return chain
    .slice(1)
    .map((c) => c.name)
    .join(" ");
}

/**
 * Follows subcommand words from the root. A word that names no subcommand ends the walk when the command
 * has its own `run` (the word is its argument), else it is an unknown command (`lenient`: ignored). Without
 * a word, a group runs its `default` subcommand; help stays with the group.
 */
export async function walk(
  root: CommandDef<any>,
  argv: string[],
  opts: { for: "run" | "help"; lenient: boolean },
): Promise<{ chain: Chain; rawArgs: string[] }> {
  const chain: Chain = [{ name: "fermix", cmd: root }];
  let rest = argv;
  const carried: string[] = [];
  for (;;) {
    const { cmd } = chain.at(-1)!;
    const subs = await subCommands(cmd);
    if (!subs) break;
    const at = wordIndex(rest, await resolveValue(cmd.args ?? {}));
    if (at < 0) {
      // Help for a group describes the group, not the subcommand it runs by default.
      const fallback = cmd.default && opts.for === "run" ? await resolveValue(cmd.default) : undefined;
      const sub = fallback ? await findSubCommand(subs, fallback) : undefined;
      if (!sub) break;
      chain.push({ name: fallback!, cmd: sub });
      continue;
    }
    const word = rest[at]!;
    const sub = await findSubCommand(subs, word);
    if (!sub) {
      if (cmd.run || opts.lenient) break;
      throw await unknownCommand(chain, subs, word);
    }
    carried.push(...rest.slice(0, at));
    rest = rest.slice(at + 1);
    chain.push({ name: word, cmd: sub });
  }
  return { chain, rawArgs: [...carried, ...rest] };
}

type SubCommands = Record<string, CommandDef<any> | (() => Promise<CommandDef<any>>)>;

async function subCommands(cmd: CommandDef<any>): Promise<SubCommands | undefined> {
  const subs = cmd.subCommands ? ((await resolveValue(cmd.subCommands)) as SubCommands) : undefined;
  return subs && Object.keys(subs).length ? subs : undefined;
}

/** By name, loading only that one; else by `meta.alias`, loading in declaration order until one matches. */
export async function findSubCommand(subs: SubCommands, word: string): Promise<CommandDef<any> | undefined> {
  if (Object.hasOwn(subs, word)) return resolveValue(subs[word]!);
  for (const entry of Object.values(subs)) {
    const sub = await resolveValue(entry);
    const alias = (await resolveValue(sub.meta ?? {})).alias;
    if (alias === word || (Array.isArray(alias) && alias.includes(word))) return sub;
  }
  return undefined;
}

/** Where the subcommand's word is: the first word before `--` that is not an option or an option's value. */
function wordIndex(rawArgs: string[], args: Record<string, { type?: string; alias?: string | string[] }>): number {
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") return -1;
    if (!arg.startsWith("-") || arg === "-") return i;
    if (arg.includes("=")) continue;
    const name = arg.replace(/^--?/, "");
    const valued = Object.entries(args).some(
      ([key, d]) =>
        (d.type === "string" || d.type === "enum") &&
        (key === name || d.alias === name || (Array.isArray(d.alias) && d.alias.includes(name))),
    );
    if (valued) i++;
  }
  return -1;
}

async function unknownCommand(chain: Chain, subs: SubCommands, word: string): Promise<FermixError> {
  if (chain.length === 1) return new FermixError("usage", `unknown command: ${word}`, { command: "" });
  const names: string[] = [];
  for (const [name, entry] of Object.entries(subs)) {
    if (!(await resolveValue((await resolveValue(entry)).meta ?? {})).hidden) names.push(name);
  }
  const path = pathOf(chain);
  return new FermixError("usage", `${path}: unknown subcommand "${word}" (${names.join(", ")})`, { command: path });
}

export async function showHelp(chain: Chain, write: (text: string) => Promise<void>, code = 0): Promise<number> {
  const { renderHelp } = await import("./usage.ts");
  await write(await renderHelp(chain));
  return code;
}
