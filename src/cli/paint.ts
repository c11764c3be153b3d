import { isatty } from "node:tty";
import { colors } from "consola/utils";
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
  return { ok: colors.green, warn: colors.yellow, fail: colors.red };
}
