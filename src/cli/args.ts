import { UsageError } from "./exit.ts";

/**
 * Declared options of a verb. A small strict parser of our own rather than citty's: importing citty
 * cost ~1 ms of start-up on every client call, and the client path has a budget of a few ms.
 */
export type OptionDef =
  | { type: "boolean"; alias?: string; description: string }
  | { type: "string"; alias?: string; valueHint?: string; description: string };
export type OptionsDef = Record<string, OptionDef>;

export type ParsedArgs = { _: string[]; [name: string]: string | boolean | string[] | undefined };

/**
 * `--name value`, `--name=value`, `-a value`, `-avalue`, `--flag`, `--no-flag`, and `--` to end
 * options. Positional words are kept exactly as given (never re-split or re-quoted). An undeclared
 * option or a string option without a value is a usage error (exit 2).
 */
export function parseStrict(rawArgs: string[], def: OptionsDef, command: string): ParsedArgs {
  const out: ParsedArgs = { _: [] };
  const byAlias = new Map(Object.entries(def).flatMap(([name, d]) => (d.alias ? [[d.alias, name] as const] : [])));
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") {
      out._.push(...rawArgs.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      out._.push(arg);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    } else {
      const alias = arg.slice(1, 2);
      name = byAlias.get(alias) ?? alias;
      if (!byAlias.has(alias)) throw UsageError(`${command}: unknown option -${alias}`);
      inline = arg.length > 2 ? arg.slice(2) : undefined;
    }
    let option = def[name];
    let negated = false;
    if (!option && name.startsWith("no-") && def[name.slice(3)]?.type === "boolean") {
      name = name.slice(3);
      option = def[name];
      negated = true;
    }
    if (!option) throw UsageError(`${command}: unknown option --${name}`);
    if (option.type === "boolean") {
      if (inline !== undefined) throw UsageError(`${command}: --${name} takes no value`);
      out[name] = !negated;
      continue;
    }
    const value = inline ?? rawArgs[++i];
    if (value === undefined || value === "") throw UsageError(`${command}: --${name} needs a value`);
    out[name] = value;
  }
  return out;
}
