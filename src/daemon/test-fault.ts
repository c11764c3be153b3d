import type { Env } from "../config/env.ts";
import { defineError } from "../error.ts";
import type { Subsystem } from "../subsystem.ts";

/** The fault FERMIX_TEST_FAULT raises; `part` names where it happened, as fault-policy.ts reads it. */
export const TestFault = defineError<{ part: string }>("test_fault");
export const TestFaultSpecInvalid = defineError("test_fault_spec_invalid");

/**
 * TEST ONLY. `FERMIX_TEST_FAULT` makes `fermix run`, once its parts have started, misbehave in one of them — how the
 * tests show the daemon's fault policy and its bounded stop on the compiled binary without a broken peer:
 * - `<part>:<count>` (e.g. `jobs:3`): `count` promises rejected inside that running part, with nothing to catch them;
 * - `<part>:hang-stop`: that part's stop never returns, as a hung peer or a library that never settles would.
 * Unset (always, outside the tests) this returns undefined and nothing happens; set to anything else it throws
 * before the daemon serves, so a typo in a test cannot pass as "no fault happened". The returned function acts.
 */
export function testFaults(env: Env, parts: readonly Subsystem[]): (() => void) | undefined {
  const spec = env.FERMIX_TEST_FAULT;
  if (spec === undefined || spec === "") return undefined;
  const match = /^([a-z][a-z-]*):(\d{1,4}|hang-stop)$/.exec(spec);
  const part = match && parts.find((p) => p.name === match[1]);
  if (!match || !part) {
    throw TestFaultSpecInvalid(
      `FERMIX_TEST_FAULT=${spec} is not <part>:<count> or <part>:hang-stop with a part of ${parts.map((p) => p.name).join(", ")}`,
    );
  }
  if (match[2] === "hang-stop") {
    return () => {
      part.stop = () => new Promise<void>(() => {});
    };
  }
  const count = Number(match[2]);
  return () => {
    for (let n = 1; n <= count; n++) {
      // Chained on the part's own loaded code, and deliberately left unhandled: the process-wide policy must see it.
      void part.api().then(() => {
        throw TestFault(`test fault ${n} of ${count} in ${part.name} (FERMIX_TEST_FAULT)`, { part: part.name });
      });
    }
  };
}
