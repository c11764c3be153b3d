import type { OptionsDef } from "./args.ts";

/** A CLI verb: its declared options (for help and strict parsing) and a run that returns the exit code. */
export type CliCommand = {
  meta: { name: string; description: string; usage?: string };
  options: OptionsDef;
  run(rawArgs: string[]): Promise<number>;
};

const HELP = { type: "boolean", alias: "h", description: "show this help" } as const;

/** `--help`/`-h` among the options (not after `--`, where it is a word): the dispatcher answers it. */
export function wantsHelp(rawArgs: string[]): boolean {
  const end = rawArgs.indexOf("--");
  return (end < 0 ? rawArgs : rawArgs.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

export function defineCliCommand(command: CliCommand): CliCommand {
  return command;
}

/** `fermix <verb> --help`: built from the declared options, so help never drifts from parsing. */
export function renderHelp(command: CliCommand): string {
  const lines = [`Usage: fermix ${command.meta.usage ?? command.meta.name}`, "", command.meta.description, ""];
  const options = [...Object.entries(command.options), ["help", HELP] as const];
  lines.push("Options:");
  for (const [name, option] of options) {
    const alias = option.alias ? `-${option.alias}, ` : "";
    const value = option.type === "string" ? ` ${option.valueHint ?? "VALUE"}` : "";
    lines.push(`  ${`${alias}--${name}${value}`.padEnd(24)} ${option.description}`);
  }
  return `${lines.join("\n")}\n`;
}
