import * as v from "valibot";

/*
 * The jobs routes' query strings, the only part of the jobs protocol the daemon validates (the rest is what it
 * sends). Apart from schemas.ts so that the daemon, which validates requests and never parses its own answers,
 * does not build the whole protocol's schemas at boot (issue 31: ~190 valibot constructions the daemon never uses).
 */
export const JOB_STATES = ["scheduled", "running", "paused", "disabled", "completed"] as const;
export const RUN_STATUSES = ["queued", "running", "ok", "error", "timeout", "budget"] as const;

/** The query of `GET /v1/jobs`. */
export const JobListQuery = v.strictObject({ state: v.optional(v.picklist(JOB_STATES)) });
/** The query of `GET /v1/jobs/<id>/runs`; `limit` 1-500 (default 20). */
export const RunListQuery = v.strictObject({
  status: v.optional(v.picklist(RUN_STATUSES)),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, "a whole number from 1 to 500"),
      v.transform(Number),
      v.minValue(1, "a whole number from 1 to 500"),
      v.maxValue(500, "a whole number from 1 to 500"),
    ),
  ),
});
