import type { RootCommand } from "@bomb.sh/tab";
import type { ArgDef, CommandDef } from "citty";
import { resolveValue } from "./command.ts";
import { findSubCommand } from "./dispatch.ts";
import { visibleSubCommands } from "./usage.ts";

/**
 * Shell completion from the command tree, through @bomb.sh/tab's citty adapter: the tree (hidden commands left
 * out) gives the commands, options and positionals; the handlers below give the values that depend on this
 * machine. tab's handlers are synchronous, so a first parse records which values are wanted, they are loaded,
 * and a second parse answers. Every source fails quietly: a completion prints candidates or nothing, never an
 * error into the person's prompt.
 */
type Source = "plugins" | "skills" | "sessions" | "session-ids" | "providers" | "jobs";
type Complete = (value: string, description: string) => void;
type Handler = (complete: Complete) => void;
type Config = {
  subCommands?: Record<string, Config>;
  options?: Record<string, Handler>;
  args?: Record<string, Handler>;
};

const STATIC: Record<string, readonly string[]> = {
  shells: ["bash", "zsh", "fish"],
  modes: ["strict", "standard", "open"],
  kinds: ["builtin", "skill", "mcp", "plugin"],
  templates: ["FERMIX.md", "SOUL.md"],
};

/** Which values an argument takes, by its command path and name; positionals named PATH or DIR take files. */
function valuesFor(path: string[], name: string, def: ArgDef): Source | keyof typeof STATIC | "files" | undefined {
  const [verb, sub] = path;
  if (verb === "plugins" && name === "name") return "plugins";
  if (verb === "skills" && sub === "view" && name === "name") return "skills";
  if ((verb === "ask" || verb === "chat") && name === "session") return "sessions";
  if (verb === "ask" && name === "attach") return "files";
  if (verb === "sessions" && name === "id") return "session-ids";
  if (verb === "jobs" && name === "id") return "jobs";
  if (name === "provider") return "providers";
  if (verb === "sandbox" && name === "mode") return "modes";
  if (verb === "completion" && name === "shell") return "shells";
  if (verb === "capabilities" && name === "kind") return "kinds";
  if (verb === "doctor" && name === "template") return "templates";
  if (def.type === "positional" && (def.valueHint === "PATH" || def.valueHint === "DIR")) return "files";
  return undefined;
}

/** Prints the candidates for `words` (the words after `fermix`, the last one being completed). */
export async function completeWords(root: CommandDef<any>, words: string[]): Promise<string> {
  const loaded = new Map<Source, string[]>();
  const wanted = new Set<Source>();
  let files = false;
  const values = (kind: ReturnType<typeof valuesFor>): Handler | undefined => {
    if (kind === undefined) return undefined;
    if (kind === "files")
      return () => {
        files = true;
      };
    if (kind in STATIC) return (complete) => offer(complete, STATIC[kind]!);
    const source = kind as Source;
    return (complete) => {
      const got = loaded.get(source);
      if (got) for (const v of got) complete(v, "");
      else wanted.add(source);
    };
  };
  const { default: tab } = await import("@bomb.sh/tab/citty");
  const tree = await treeFor(root, words);
  // `fermix help <TAB>` offers the verbs, which the pruned tree does not hold.
  const verbs = words[0] === "help" ? (await visibleSubCommands(root)).map(([name]) => name) : [];
  const completion = await tab(tree, await configFor(tree, [], values, verbs));
  dropPositionalOptions(completion, tree, []);
  const parse = () => capture(() => completion.parse([...words]));
  let out = parse();
  if (wanted.size) {
    await Promise.all([...wanted].map(async (s) => loaded.set(s, await load(s).catch(() => []))));
    files = false;
    out = parse();
  }
  // tab always asks the shell not to complete files; a path argument wants them.
  return files ? out.replace(/^:4$/m, ":0") : out;
}

/**
 * The part of the tree tab needs for these words, loaded as its adapter wants it (hidden commands left out).
 * Only the verb being completed is loaded in full: loading every verb's module costs more than the rest of a
 * completion. The first word needs every verb, for its name and description, but not their subcommands.
 */
async function treeFor(root: CommandDef<any>, words: string[]): Promise<CommandDef<any>> {
  const top = await shallow(root);
  if (words.length < 2) {
    const verbs = await visibleSubCommands(root);
    top.subCommands = Object.fromEntries(await Promise.all(verbs.map(async ([n, s]) => [n, await shallow(s)])));
    return top;
  }
  const subs = root.subCommands ? await resolveValue(root.subCommands) : {};
  const verb = await findSubCommand(subs as Record<string, CommandDef<any>>, words[0]!);
  if (verb && !(await resolveValue(verb.meta ?? {})).hidden) top.subCommands = { [words[0]!]: await visibleTree(verb) };
  return top;
}

async function shallow(cmd: CommandDef<any>): Promise<CommandDef<any>> {
  return { meta: await resolveValue(cmd.meta ?? {}), args: await resolveValue(cmd.args ?? {}), run: cmd.run };
}

async function visibleTree(cmd: CommandDef<any>): Promise<CommandDef<any>> {
  const copy = await shallow(cmd);
  const subs = await visibleSubCommands(cmd);
  if (subs.length) {
    copy.subCommands = Object.fromEntries(await Promise.all(subs.map(async ([n, s]) => [n, await visibleTree(s)])));
  }
  return copy;
}

/**
 * tab's per-command handlers. Every string option gets one (tab takes an option without a handler for a
 * boolean, and would then complete commands in place of its value).
 */
async function configFor(
  cmd: CommandDef<any>,
  path: string[],
  values: (kind: ReturnType<typeof valuesFor>) => Handler | undefined,
  verbs: string[],
): Promise<Config> {
  const config: Config = { options: {}, args: {} };
  for (const [name, def] of Object.entries((cmd.args ?? {}) as Record<string, ArgDef>)) {
    const handler =
      values(valuesFor(path, name, def)) ??
      (def.type === "enum" && def.options ? (complete: Complete) => offer(complete, def.options!) : undefined);
    if (def.type === "positional") {
      if (handler) config.args![name] = handler;
    } else if (def.type === "string" || def.type === "enum") {
      config.options![name] = handler ?? (() => {});
    }
  }
  const subs = (cmd.subCommands ?? {}) as Record<string, CommandDef<any>>;
  if (Object.keys(subs).length) {
    config.subCommands = {};
    for (const [name, sub] of Object.entries(subs))
      config.subCommands[name] = await configFor(sub, [...path, name], values, verbs);
  }
  const help = !path.length ? config.subCommands?.help : undefined;
  if (help) help.args = { command: (complete) => offer(complete, verbs) };
  return config;
}

/** tab's adapter also registers each positional as an option (`--name`); those are not options of ours. */
function dropPositionalOptions(completion: RootCommand, cmd: CommandDef<any>, path: string[]): void {
  const target = path.length ? completion.commands.get(path.join(" ")) : completion;
  for (const [name, def] of Object.entries((cmd.args ?? {}) as Record<string, ArgDef>)) {
    if (def.type === "positional") target?.options.delete(name);
  }
  for (const [name, sub] of Object.entries((cmd.subCommands ?? {}) as Record<string, CommandDef<any>>)) {
    dropPositionalOptions(completion, sub, [...path, name]);
  }
}

function offer(complete: Complete, values: readonly string[]): void {
  for (const value of values) complete(value, "");
}

async function load(source: Source): Promise<string[]> {
  switch (source) {
    case "plugins": {
      const { pluginContext } = await import("./_plugins.ts");
      const ctx = await pluginContext();
      return (await ctx.host.entries(ctx.config)).map((e) => e.name);
    }
    case "skills": {
      const [{ processEnv }, { fermixPaths, resolveHome }, { createSkillCatalog }] = await Promise.all([
        import("../config/env.ts"),
        import("../config/paths.ts"),
        import("../skills/catalog.ts"),
      ]);
      const catalog = createSkillCatalog({ homeSkillsDir: fermixPaths(resolveHome(processEnv())).skills });
      return (await catalog.load()).skills.map((s) => s.name);
    }
    case "sessions":
      return recentSessions();
    case "session-ids":
      return sessionIds();
    case "providers":
      return (await import("../providers/descriptors.ts")).PROVIDER_IDS;
    case "jobs":
      return jobIds();
  }
}

/** The scheduled jobs' ids, newest first, from memory.db opened read-only; none before it (or jobs) exist. */
async function jobIds(): Promise<string[]> {
  const [{ processEnv }, { fermixPaths, resolveHome }, { openSqlite }] = await Promise.all([
    import("../config/env.ts"),
    import("../config/paths.ts"),
    import("../runtime/sqlite.ts"),
  ]);
  const db = openSqlite(fermixPaths(resolveHome(processEnv())).db, { readonly: true });
  try {
    return db
      .query<{ id: string }>("SELECT id FROM scheduled_jobs ORDER BY created_at DESC LIMIT 100")
      .all()
      .map((row) => row.id);
  } finally {
    db.close();
  }
}

/** The recent `fermix ask` sessions, from memory.db opened read-only; none when it does not exist yet. */
async function recentSessions(): Promise<string[]> {
  const [{ processEnv }, { fermixPaths, resolveHome }, { openSqlite }, { recentChats }] = await Promise.all([
    import("../config/env.ts"),
    import("../config/paths.ts"),
    import("../runtime/sqlite.ts"),
    import("../memory/messages.ts"),
  ]);
  const db = openSqlite(fermixPaths(resolveHome(processEnv())).db, { readonly: true });
  try {
    return recentChats(db, "cli", 20);
  } finally {
    db.close();
  }
}

/** Every channel's recent sessions as `fermix sessions` names them; none before memory.db exists. */
async function sessionIds(): Promise<string[]> {
  const { withSessionDatabase } = await import("./_sessions-local.ts");
  return withSessionDatabase("read", (store) => store.list({ limit: 20 }).map((s) => s.id));
}

/** tab prints with console.log; its lines are collected so the caller decides what reaches stdout. */
export function capture(print: () => void): string {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => void lines.push(parts.join(" "));
  try {
    print();
  } finally {
    console.log = log;
  }
  return lines.length ? `${lines.join("\n")}\n` : "";
}
