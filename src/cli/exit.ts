import { FermixError, isFermixError } from "../error.ts";
import { writeErr } from "./output.ts";

/**
 * `schemaMismatch`: `ask --schema` got an answer that still missed the schema after its one repair. `budget`: a
 * budget of [fermix_core.budget] (or a job's max_usd) was reached, so the turn was refused or stopped.
 */
export const EXIT = { ok: 0, error: 1, usage: 2, notRunning: 3, schemaMismatch: 4, budget: 5 } as const;

export const UsageError = (message: string) => new FermixError("usage", message);

/** The CLI's one mapping from error codes to exit codes. */
export function exitCodeFor(err: FermixError): number {
  if (
    err.code === "usage" ||
    err.code === "invalid_argument" ||
    err.code === "unknown_provider" ||
    // `ask --tools` named no built-in (gateway/ask-extras.ts): the sentence lists the valid names.
    err.code === "unknown_tool" ||
    // A Homebrew or dpkg binary: the package manager's command is the answer, as for a usage error.
    err.code === "package_managed"
  ) {
    return EXIT.usage;
  }
  if (err.code === "not_running") return EXIT.notRunning;
  if (err.code === "schema_mismatch") return EXIT.schemaMismatch;
  if (err.code === "budget_exceeded") return EXIT.budget;
  return EXIT.error;
}

export function asFermixError(err: unknown): FermixError {
  if (isFermixError(err)) return err;
  return new FermixError("internal", err instanceof Error ? err.message : String(err));
}

/** `fermix: <reason>` on stderr, secrets redacted, and the exit code for it. */
export async function reportError(err: unknown): Promise<number> {
  const error = asFermixError(err);
  // The redactor (and the secrets it knows) loads with the first error: a run that succeeds never needs it.
  const { redact } = await import("../observability/redact.ts");
  await writeErr(`fermix: ${redact(error.message)}\n`);
  // The dispatcher names the command a usage error came from, so the hint points at that command's help.
  if (error.code === "usage") {
    const command = typeof error.data.command === "string" && error.data.command ? `${error.data.command} ` : "";
    await writeErr(`Run \`fermix ${command}--help\` for usage.\n`);
  }
  return exitCodeFor(error);
}
