import { fermixPaths } from "../../src/config/paths.ts";
import type { DoctorDeps } from "../../src/doctor/check.ts";
import { FermixError } from "../../src/error.ts";
import { loadCatalog } from "../../src/plugins/catalog/load-catalog.ts";
import { NOT_RUNNING } from "../../src/protocol/client.ts";
import { VERSION } from "../../src/version.ts";
import type { TempHome } from "../fixture/home.ts";

export const GiB = 1024 * 1024 * 1024;

/**
 * A doctor that sees only the temp FERMIX_HOME and what the test hands it: no daemon, an up-to-date
 * service unit, no OS keyring, 10 GiB free, and the catalog this checkout builds.
 */
export function doctorDeps(h: TempHome, over: Partial<DoctorDeps> & { env?: Record<string, string> } = {}): DoctorDeps {
  const { env, ...rest } = over;
  return {
    env: { HOME: h.userHome, FERMIX_HOME: h.home, ...env },
    paths: fermixPaths(h.home),
    version: VERSION,
    full: false,
    fetch,
    now: Date.now,
    probeTimeoutMs: 2_000,
    platform: "linux",
    run: () => ({ ok: false, stdout: "", stderr: "not installed" }),
    which: () => null,
    statfs: () => ({ bsize: 4096, bavail: (10 * GiB) / 4096 }),
    daemonStatus: () => Promise.reject(new FermixError(NOT_RUNNING, "not running")),
    serviceUnitState: async () => ({ installed: true, drifted: false, path: `${h.userHome}/fermix.service` }),
    loadCatalog: () => loadCatalog(),
    ...rest,
  };
}
