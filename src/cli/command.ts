import type { ArgsDef } from "citty";

/** A CLI verb: its declared options (for help and strict parsing) and a run that returns the exit code. */
export type CliCommand<T extends ArgsDef = ArgsDef> = {
  meta: { name: string; description: string; usage?: string };
  args: T;
  run(rawArgs: string[]): Promise<number>;
};

export function defineCliCommand<const T extends ArgsDef>(command: CliCommand<T>): CliCommand<T> {
  return command;
}

/** `fermix <verb> --help`: built from the declared options, so help never drifts from parsing. */
export function renderHelp(command: CliCommand): string {
  const lines = [`Usage: fermix ${command.meta.usage ?? command.meta.name}`, "", command.meta.description, ""];
  const options = Object.entries(command.args).filter(([, a]) => a.type !== "positional");
  if (options.length) lines.push("Options:");
  for (const [name, arg] of options) {
    const aliases = [(arg as { alias?: string | string[] }).alias ?? []]
      .flat()
      .map((a) => `-${a}, `)
      .join("");
    const value = arg.type === "string" ? ` ${arg.valueHint ?? "VALUE"}` : "";
    lines.push(`  ${`${aliases}--${name}${value}`.padEnd(24)} ${arg.description ?? ""}`);
  }
  return `${lines.join("\n")}\n`;
}
