import { FermixError, isFermixError } from "../error.ts";
import { redact } from "../observability/redact.ts";

/** The daemon's one mapping from error codes to HTTP statuses. */
const STATUS: Record<string, number> = {
  invalid_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  client_too_old: 426,
  daemon_too_old: 426,
  shutting_down: 503,
  job_not_found: 404,
  run_not_found: 404,
  // The job exists but its state refuses the request: paused, completed, expired, a run already going.
  job_not_runnable: 409,
  job_already_running: 409,
  job_expired: 409,
  job_schedule_invalid: 409,
};

export function errorResponse(err: unknown): Response {
  const error = toFermixError(err);
  return Response.json({ error: serialise(error) }, { status: STATUS[error.code] ?? 500 });
}

export function toFermixError(err: unknown): FermixError {
  if (isFermixError(err)) return err;
  return new FermixError("internal", `internal error: ${err instanceof Error ? err.message : String(err)}`);
}

/** Errors leave the process redacted: a vendor message may echo part of a key. */
export function serialise(error: FermixError) {
  return { code: error.code, message: redact(error.message), data: error.data as Record<string, unknown> };
}
