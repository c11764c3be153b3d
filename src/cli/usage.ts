import type { ArgDef, CommandDef, CommandMeta } from "citty";
import { flagsOf, positionalLabel } from "./args.ts";
import type { Chain } from "./chain.ts";
import { resolveValue } from "./command.ts";

/**
 * `fermix [<command>…] --help`, rendered from the declarations so help never drifts from parsing: the
 * synopsis, the description and details, the subcommands with their arguments, the positionals, the options
 * with their value hints (`--session ID`), and examples. Plain text, no colour: it is read in pipes and pagers too.
 */
export async function renderHelp(chain: Chain): Promise<string> {
  const { cmd } = chain.at(-1)!;
  const meta = await resolveValue(cmd.meta ?? {});
  const args = Object.entries(await resolveValue(cmd.args ?? {})) as Array<[string, ArgDef]>;
  const path = chain.map((c) => c.name).join(" ");
  const subs = await visibleSubCommands(cmd);
  const root = chain.length === 1;
  const fallback = cmd.default ? await resolveValue(cmd.default) : undefined;

  const lines: string[] = [];
  if (root) lines.push(`${path} — ${meta.description}`, "");
  lines.push(`Usage: ${synopsis(path, meta, args, subs.length > 0, fallback !== undefined)}`, "");
  if (!root) lines.push(sentence(meta.description ?? ""));
  if (meta.details) lines.push(meta.details);
  if (!root) lines.push("");

  if (subs.length) {
    lines.push("Commands:");
    const rows: Array<[string, string]> = [];
    for (const [name, sub] of subs) {
      const { description = "", alias } = await resolveValue(sub.meta ?? {});
      const aliases = alias ? ` (alias: ${[alias].flat().join(", ")})` : "";
      rows.push([await label(name, sub), `${description}${aliases}${name === fallback ? " (the default)" : ""}`]);
    }
    lines.push(...columns(rows), "");
  }
  const positionals = args.filter(([, d]) => d.type === "positional" && d.description);
  if (positionals.length) {
    lines.push(
      "Arguments:",
      ...columns(positionals.map(([name, d]) => [positionalLabel(name, d), d.description!])),
      "",
    );
  }
  const help = root ? "show help (also: fermix <command> --help)" : "show this help";
  const options = args.filter(([, d]) => d.type !== "positional");
  lines.push("Options:", ...columns([...options.map(([name, d]) => optionRow(name, d)), ["-h, --help", help]]), "");
  if (meta.exitCodes?.length) {
    lines.push("Exit codes:", ...meta.exitCodes.map(([code, what]) => `  ${code}  ${what}`), "");
  }
  if (meta.examples?.length) lines.push("Examples:", ...meta.examples.map((e) => `  ${e}`), "");
  if (subs.length) lines.push(`Run \`${path} <command> --help\` for the options of a command.`, "");
  return `${lines.join("\n").trimEnd()}\n`;
}

/** The subcommands help and completions show: all but `meta.hidden` ones, in declaration order. */
export async function visibleSubCommands(cmd: CommandDef<any>): Promise<Array<[string, CommandDef<any>]>> {
  const subs = cmd.subCommands ? await resolveValue(cmd.subCommands) : {};
  const out: Array<[string, CommandDef<any>]> = [];
  for (const [name, entry] of Object.entries(subs)) {
    const sub = await resolveValue(entry);
    if (!(await resolveValue(sub.meta ?? {})).hidden) out.push([name, sub]);
  }
  return out;
}

/** A one-line description stands alone in lists; under a usage line it is a sentence. */
function sentence(text: string): string {
  return /[.!?…]$/.test(text) || !text ? text : `${text}.`;
}

function synopsis(
  path: string,
  meta: CommandMeta,
  args: Array<[string, ArgDef]>,
  group: boolean,
  hasDefault: boolean,
): string {
  if (meta.usage)
    return meta.usage
      .split("\n")
      .map((line, i) => `${i ? "       " : ""}fermix ${line}`)
      .join("\n");
  const words = [path];
  if (group) words.push(hasDefault ? "[<command>]" : "<command>");
  const options = args.filter(([, d]) => d.type !== "positional");
  if (options.length > 3) words.push("[options]");
  else for (const [name, d] of options) words.push(`[${optionRow(name, d)[0].split(", ").at(-1)}]`);
  for (const [name, d] of args) if (d.type === "positional") words.push(positionalWord(name, d));
  return words.join(" ");
}

/** How a subcommand is listed: `enable NAME`, `view NAME [FILE]`, `skills list|view|reload`, `plugins <command>`. */
async function label(name: string, cmd: CommandDef<any>): Promise<string> {
  const subs = cmd.run ? [] : await visibleSubCommands(cmd);
  if (subs.length === 1) return `${name} ${await label(...subs[0]!)}`;
  if (subs.length) {
    const names = subs.map(([n]) => n).join("|");
    return `${name} ${names.length <= 24 ? names : "<command>"}`;
  }
  const args = Object.entries(await resolveValue(cmd.args ?? {})) as Array<[string, ArgDef]>;
  return [name, ...args.filter(([, d]) => d.type === "positional").map(([n, d]) => positionalWord(n, d))].join(" ");
}

function positionalWord(name: string, def: ArgDef): string {
  const text = positionalLabel(name, def);
  return def.required === false || def.default !== undefined ? `[${text}]` : text;
}

function optionRow(name: string, def: ArgDef): [string, string] {
  const value = def.type === "string" || def.type === "enum" ? ` ${def.valueHint ?? "VALUE"}` : "";
  return [`${flagsOf(name, def).join(", ")}${value}`, def.description ?? ""];
}

/** Two columns; the second starts after the longest first one, within reason (a longer one just overflows). */
function columns(rows: Array<[string, string]>): string[] {
  const width = Math.min(36, Math.max(25, ...rows.map(([left]) => left.length + 2)));
  return rows.map(([left, right]) => `  ${left.length < width ? left.padEnd(width) : `${left}  `}${right}`.trimEnd());
}
