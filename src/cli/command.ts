import type { ArgsDef, CommandContext, CommandDef } from "citty";

/**
 * The command tree is declared in citty's shape (`meta`, `args`, lazy `subCommands`), so help, usage errors
 * and shell completions (@bomb.sh/tab reads citty trees) all come from one declaration per verb. Only citty's
 * types are imported: its runtime module loads node:util at import, ~5 ms of start-up that `fermix ask` would
 * pay on every call. src/cli/dispatch.ts walks the tree, parses strictly (src/cli/args.ts) and runs the verb.
 */
declare module "citty" {
  interface CommandMeta {
    /** The synopsis after `fermix `, where the one built from the args would not say it well. */
    usage?: string;
    /** More about the command, printed under its one-line description in its own help. */
    details?: string;
    /** Command lines printed under "Examples:" in its help. */
    examples?: string[];
    /**
     * Words after the declared positionals reach `run` in `args._`, which uses them (ask's question) or
     * refuses them itself without repeating them (they may be a pasted secret). Otherwise each is a usage error.
     */
    takesWords?: boolean;
    /** String options that may be given more than once; `run` gets each one's values as a list (args.ts). */
    repeatable?: readonly string[];
    /** The exit codes a script may test, printed under "Exit codes:" in its help. */
    exitCodes?: ReadonlyArray<readonly [number, string]>;
  }
}

export type { ArgsDef, CommandDef } from "citty";

/** What a verb's `run` returns: its exit code (nothing means 0). */
export type ExitCode = number | undefined;

/** citty's `defineCommand`, without loading citty at run time: the declaration is all it does. */
export function defineCommand<const T extends ArgsDef = ArgsDef>(
  def: CommandDef<T> & { run?: (context: CommandContext<T>) => ExitCode | Promise<ExitCode> },
): CommandDef<T> {
  return def;
}

/** A verb file's default export, loaded when the verb (or help or completion for it) needs it. */
export function lazy(load: () => Promise<{ default: CommandDef<any> }>): () => Promise<CommandDef<any>> {
  return () => load().then((m) => m.default);
}

/** citty's Resolvable: a value, a promise, or a function returning either. */
export async function resolveValue<T>(input: T | Promise<T> | (() => T | Promise<T>)): Promise<T> {
  return typeof input === "function" ? await (input as () => T | Promise<T>)() : await input;
}
