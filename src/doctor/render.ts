import { type Paint, stdoutPaint } from "../cli/paint.ts";
import type { DoctorReport } from "./run-doctor.ts";

const STATUS_WIDTH = 5;
const TITLE_WIDTH = 10;

/**
 * One row per finding, the fix indented under it:
 *
 *     ok   config     ~/.fermix/config.toml is valid
 *     warn daemon     not running (no socket at ~/.fermix/daemon.sock)
 *          fix: fermix start
 *
 * On a terminal the status words are coloured (`paint`); the columns are laid out on the plain words.
 */
export function renderReport(report: DoctorReport, paint: Paint = stdoutPaint()): string {
  const lines: string[] = [];
  for (const row of report.rows) {
    const pad = " ".repeat(Math.max(0, STATUS_WIDTH - row.status.length));
    lines.push(`${paint[row.status](row.status)}${pad}${row.title.padEnd(TITLE_WIDTH)} ${row.detail}`);
    if (row.fix && row.status !== "ok") lines.push(`${" ".repeat(STATUS_WIDTH)}fix: ${row.fix}`);
  }
  const { ok, warn, fail } = report.counts;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  lines.push("", `${ok} ok, ${plural(warn, "warning")}, ${plural(fail, "failure")}`);
  return `${lines.join("\n")}\n`;
}
