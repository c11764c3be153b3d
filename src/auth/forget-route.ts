import * as v from "valibot";
import { FermixError } from "../error.ts";
import { forgetHeldTokens } from "./held-tokens.ts";
import { PROFILE_IDS } from "./profiles.ts";

const ForgetRequest = v.object({ profile: v.picklist(PROFILE_IDS) });

/** POST /v1/auth/forget {profile}: the daemon side of `fermix auth logout`. */
export async function forgetAuth(req: Request): Promise<Response> {
  const parsed = v.safeParse(ForgetRequest, await req.json().catch(() => undefined));
  if (!parsed.success) {
    throw new FermixError("invalid_argument", `profile must be one of ${PROFILE_IDS.join(", ")}`);
  }
  forgetHeldTokens(parsed.output.profile);
  return Response.json({ ok: true, profile: parsed.output.profile });
}
