/** Whether the arguments ask for help: `--help`/`-h` before any `--` (after it, they are words). */
export function asksForHelp(argv: readonly string[]): boolean {
  return beforeWords(argv).some(isHelpFlag);
}

/** The arguments before `--`, where options and command words are. */
export function beforeWords(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf("--");
  return end < 0 ? argv : argv.slice(0, end);
}

export function isHelpFlag(arg: string): boolean {
  return arg === "--help" || arg === "-h";
}
