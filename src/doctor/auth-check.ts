import { statSync } from "node:fs";
import { brokenCopies, createAuthStore } from "../auth/auth-file.ts";
import { describe, profileStates } from "../auth/status.ts";
import { isFermixError } from "../error.ts";
import { type DoctorRow, defineCheck } from "./check.ts";

const ID = "auth-tokens";
const TITLE = "auth tokens";

/**
 * The chat-provider sign-ins in auth.json: each profile with its expiry, "Reconnect needed" when the provider
 * refused a refresh, a file that does not parse or is readable by others, and copies a refused write kept aside.
 * Silent (no row) when nobody ever signed in.
 */
export const authCheck = defineCheck({
  id: ID,
  async run(ctx) {
    const file = ctx.paths.auth;
    const kept = brokenCopies(file).map((f) => ctx.display(f));
    const keptNote = kept.length ? `; a broken auth.json was kept aside at ${kept.join(", ")}` : "";
    let states: ReturnType<typeof profileStates>;
    try {
      states = profileStates(createAuthStore(file), ctx.now());
    } catch (err) {
      if (!isFermixError(err)) throw err;
      return [row("fail", err.message, "move the file aside and sign in again: fermix auth login --provider …")];
    }
    const signedIn = states.filter((s) => s.state !== "not_logged_in");
    if (!signedIn.length && !kept.length) return [];
    const detail =
      (signedIn.length
        ? signedIn.map((s) => `${s.provider}: ${describe(s, ctx.now())}`).join("; ")
        : "no provider sign-ins") + keptNote;
    const broken = signedIn.filter((s) => s.state === "reconnect_needed" || s.state === "expired");
    if (broken.length) {
      const fix = broken.map((s) => `fermix auth login --provider ${s.provider}`).join(" and ");
      return [row("warn", detail, `sign in again: ${fix}`)];
    }
    if (looseMode(file)) {
      return [
        row("warn", `${detail}; ${ctx.display(file)} is readable by other users`, `chmod 600 ${ctx.display(file)}`),
      ];
    }
    if (kept.length) return [row("warn", detail, `look through ${kept.join(", ")}, then delete it`)];
    return [row("ok", detail)];
  },
});

function row(status: DoctorRow["status"], detail: string, fix?: string): DoctorRow {
  return fix ? { id: ID, title: TITLE, status, detail, fix } : { id: ID, title: TITLE, status, detail };
}

function looseMode(file: string): boolean {
  try {
    return (statSync(file).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}
