import type { ArgDef, ArgsDef } from "citty";
import { UsageError } from "./exit.ts";

/**
 * What a verb's run sees: `_` holds every positional word exactly as given (never re-split or re-quoted);
 * declared positionals and options by name. The same shape citty's parser produces, but strict.
 */
export type ParsedArgs = { _: string[]; [name: string]: string | number | boolean | string[] | undefined };

/** An option's names on the command line: `--name`, and its aliases (`-s` for one letter, else `--alias`). */
export function flagsOf(name: string, def: ArgDef): string[] {
  const aliases = "alias" in def && def.alias ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : [];
  return [...aliases.map((a) => (a.length === 1 ? `-${a}` : `--${a}`)), `--${name}`];
}

const isPositional = (def: ArgDef) => def.type === "positional";
const takesValue = (def: ArgDef) => def.type === "string" || def.type === "enum";

/**
 * Parses `rawArgs` against a verb's declared args: `--name value`, `--name=value`, `-a value`, `-avalue`,
 * `--flag`, `--no-flag` (booleans only), and `--` to end options. Undeclared options, a value for a boolean,
 * a string option without a value, an enum value not offered, a missing required argument, and words beyond the
 * declared positionals (unless the verb `takesWords`) are usage errors naming the culprit (exit 2). `command`
 * is the verb's path for those sentences ("plugins enable"). A `repeatable` string option collects every value
 * given, in order, as a list (`ask -a one.png -a two.pdf`); any other keeps its last.
 */
export function parseArgs(
  rawArgs: string[],
  def: ArgsDef,
  command: string,
  takesWords = false,
  repeatable: readonly string[] = [],
): ParsedArgs {
  const out: ParsedArgs = { _: [] };
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
    let flag: string;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      flag = eq >= 0 ? arg.slice(0, eq) : arg;
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    } else {
      flag = arg.slice(0, 2);
      inline = arg.length > 2 ? arg.slice(2) : undefined;
    }
    let name = optionNamed(flag, def);
    let negated = false;
    if (name === undefined && flag.startsWith("--no-")) {
      const positive = optionNamed(`--${flag.slice(5)}`, def);
      if (positive !== undefined && def[positive]!.type === "boolean") {
        name = positive;
        negated = true;
      }
    }
    if (name === undefined) throw UsageError(`${command}: unknown option ${flag}`);
    const option = def[name]!;
    if (!takesValue(option)) {
      if (inline !== undefined) throw UsageError(`${command}: --${name} takes no value`);
      out[name] = !negated;
      continue;
    }
    const value = inline ?? rawArgs[++i];
    if (value === undefined || value === "") throw UsageError(`${command}: --${name} needs a value`);
    if (option.type === "enum" && option.options && !option.options.includes(value)) {
      throw UsageError(`${command}: --${name} takes one of ${option.options.join(", ")} (got "${value}")`);
    }
    if (repeatable.includes(name)) out[name] = [...((out[name] as string[] | undefined) ?? []), value];
    else out[name] = value;
  }
  return assign(out, def, command, takesWords);
}

/**
 * The declared option a flag names. A plain scan, on purpose: `fermix ask` runs this on every call, and building
 * a lookup table of every verb's flags up front measurably delayed the first I/O after it (~1 ms, JIT work).
 */
function optionNamed(flag: string, def: ArgsDef): string | undefined {
  for (const name in def) {
    const d = def[name]!;
    if (isPositional(d)) continue;
    if (flag === `--${name}`) return name;
    const alias = "alias" in d ? d.alias : undefined;
    if (alias === undefined) continue;
    for (const a of typeof alias === "string" ? [alias] : alias) {
      if (flag === (a.length === 1 ? `-${a}` : `--${a}`)) return name;
    }
  }
  return undefined;
}

/** Defaults, required options, and the positional words by their declared names. */
function assign(out: ParsedArgs, def: ArgsDef, command: string, takesWords: boolean): ParsedArgs {
  const words = [...out._];
  for (const [name, d] of Object.entries(def)) {
    if (isPositional(d)) {
      const word = words.shift();
      if (word !== undefined) out[name] = word;
      else if (d.default !== undefined) out[name] = d.default;
      else if (d.required !== false) {
        const about = d.description ? `: ${d.description}` : "";
        throw UsageError(`${command}: missing ${positionalLabel(name, d)}${about}`);
      }
      continue;
    }
    if (out[name] === undefined && d.default !== undefined) out[name] = d.default;
    if (out[name] === undefined && d.required === true) throw UsageError(`${command}: --${name} is required`);
  }
  if (words.length && !takesWords) throw UsageError(`${command}: unexpected argument "${words[0]}"`);
  return out;
}

/** How a positional shows in usage and errors: its value hint (`NAME[@VER]`, `words…`) or its name in capitals. */
export function positionalLabel(name: string, def: ArgDef): string {
  return def.valueHint ?? name.toUpperCase();
}
