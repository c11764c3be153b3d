import { isatty } from "node:tty";
import { type Env, processEnv } from "../config/env.ts";

/** Colours for the status words a person scans human output for. */
export type Paint = {
  ok(text: string): string;
  warn(text: string): string;
  fail(text: string): string;
};

export const PLAIN: Paint = { ok: (s) => s, warn: (s) => s, fail: (s) => s };

/**
 * consola's colours when stdout is a terminal and NO_COLOR is unset (TERM=dumb counts as none), else
 * PLAIN — whatever FORCE_COLOR says, so piped output and `--json` never carry escape codes. consola/utils
 * applies its own test on top (it reads stdout and the environment once, when first imported).
 */
export function stdoutPaint(env: Env = processEnv(), isTTY = isatty(1)): Paint {
  if (!isTTY || env.NO_COLOR || env.TERM === "dumb") return PLAIN;
  // Loaded only when colour is wanted: a script piping `fermix status` pays nothing for consola.
  const { colors } = require("consola/utils") as typeof import("consola/utils");
  return { ok: colors.green, warn: colors.yellow, fail: colors.red };
}
