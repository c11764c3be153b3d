import { type ArgsDef, parseArgs } from "citty";
import { UsageError } from "./exit.ts";

/**
 * citty's parser, made strict: an option the command does not declare is a usage error (exit 2)
 * rather than something silently ignored, and string options must carry a value.
 */
export function parseStrict<T extends ArgsDef>(rawArgs: string[], def: T, command: string) {
  const parsed = parseArgs(rawArgs, def) as Record<string, unknown> & { _: string[] };
  const known = new Set<string>(["_"]);
  for (const [name, arg] of Object.entries(def)) {
    known.add(name);
    for (const alias of [(arg as { alias?: string | string[] }).alias ?? []].flat()) known.add(alias);
  }
  for (const key of Object.keys(parsed)) {
    if (!known.has(key)) throw UsageError(`${command}: unknown option --${key}`);
  }
  for (const [name, arg] of Object.entries(def)) {
    if (arg.type === "string" && name in parsed && (typeof parsed[name] !== "string" || parsed[name] === "")) {
      throw UsageError(`${command}: --${name} needs a value`);
    }
  }
  return parsed;
}
