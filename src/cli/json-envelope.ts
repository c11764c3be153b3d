import type { FermixError } from "../error.ts";
import { redact } from "../observability/redact.ts";

/** The typed envelope newer verbs print with --json. */
export function jsonEnvelope(result: { ok: true; result: unknown } | { ok: false; error: FermixError }): string {
  if (result.ok) return JSON.stringify({ schema_version: 1, ok: true, result: result.result });
  return JSON.stringify({
    schema_version: 1,
    ok: false,
    error: { code: result.error.code, sentence: redact(result.error.message) },
  });
}
