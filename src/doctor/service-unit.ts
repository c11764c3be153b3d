import { existsSync } from "node:fs";
import type { Env } from "../config/env.ts";
import { unitDrift } from "../service/drift.ts";
import type { ServiceScope } from "../service/service-target.ts";
import { planService, serviceKind, serviceTarget } from "../service/target.ts";
import type { ServiceUnitState } from "./check.ts";

/**
 * The installed unit (user scope first, then system) and whether it still matches what this binary would
 * write. `binary` throws when running from source, where there is nothing to compare with: drift unknown.
 * Files only — no systemctl/launchctl call, so doctor stays quick.
 */
export function installedServiceUnit(env: Env, platform: string, binary: () => string): ServiceUnitState {
  let kind: ReturnType<typeof serviceKind>;
  try {
    kind = serviceKind(platform);
  } catch {
    return { installed: false };
  }
  for (const scope of ["user", "system"] as ServiceScope[]) {
    const { path } = serviceTarget({ kind, scope, env });
    if (!existsSync(path)) continue;
    let drifted: boolean | undefined;
    try {
      drifted = unitDrift(path, planService({ scope, env, binary: binary(), platform }).content).state === "drifted";
    } catch {
      drifted = undefined;
    }
    return { installed: true, drifted, path };
  }
  return { installed: false };
}
