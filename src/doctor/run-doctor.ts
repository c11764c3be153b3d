import { loadAppConfig } from "../app-config.ts";
import { FermixError, isFermixError } from "../error.ts";
import { redact } from "../observability/redact.ts";
import { fileExists } from "../runtime/files.ts";
import { authCheck } from "./auth-check.ts";
import { budgetCheck } from "./budget-check.ts";
import { catalogCheck } from "./catalog-check.ts";
import { channelsCheck } from "./channels-check.ts";
import type { DoctorCheck, DoctorContext, DoctorDeps, DoctorRow } from "./check.ts";
import { cloudRailCheck } from "./cloud-rail-check.ts";
import { computerUseCheck } from "./computer-use-check.ts";
import { configCheck } from "./config-check.ts";
import { daemonCheck } from "./daemon-check.ts";
import { diskCheck } from "./disk-check.ts";
import { keychainCheck } from "./keychain-check.ts";
import { mcpServersCheck } from "./mcp-servers-check.ts";
import { pluginsCheck } from "./plugins-check.ts";
import { providersCheck } from "./providers-check.ts";
import { serviceCheck } from "./service-check.ts";
import { templatesCheck } from "./templates-check.ts";
import { traceExportCheck } from "./trace-export-check.ts";
import { transcriptionCheck } from "./transcription-check.ts";
import { voiceCheck } from "./voice-check.ts";
import { webCheck } from "./web-check.ts";

/** In the order they print. Adding a check is one file and one line here. */
export const CHECKS: readonly DoctorCheck[] = [
  configCheck,
  providersCheck,
  authCheck,
  daemonCheck,
  serviceCheck,
  keychainCheck,
  pluginsCheck,
  mcpServersCheck,
  channelsCheck,
  transcriptionCheck,
  voiceCheck,
  computerUseCheck,
  cloudRailCheck,
  webCheck,
  catalogCheck,
  templatesCheck,
  traceExportCheck,
  budgetCheck,
  diskCheck,
];

export type DoctorReport = {
  /** No row failed: the exit code is 0. */
  ok: boolean;
  full: boolean;
  version: string;
  counts: { ok: number; warn: number; fail: number };
  rows: DoctorRow[];
};

/**
 * Runs every check side by side (the provider probes are the slow part) and redacts what they say: every secret
 * a check resolved on the way was registered as it was (config/secret-registry.ts).
 */
export async function runDoctor(deps: DoctorDeps, checks: readonly DoctorCheck[] = CHECKS): Promise<DoctorReport> {
  const ctx = await doctorContext(deps);
  const results = await Promise.all(checks.map((check) => check.run(ctx).catch((err) => [crashed(check, err)])));
  const rows = results.flat().map(scrub);
  const count = (status: DoctorRow["status"]) => rows.filter((r) => r.status === status).length;
  const counts = { ok: count("ok"), warn: count("warn"), fail: count("fail") };
  return { ok: counts.fail === 0, full: deps.full, version: deps.version, counts, rows };
}

export async function doctorContext(deps: DoctorDeps): Promise<DoctorContext> {
  const home = deps.env.HOME;
  const ctx: DoctorContext = {
    ...deps,
    configExists: await fileExists(deps.paths.config),
    display: (path) => (home && home !== "/" && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path),
  };
  try {
    // The same read and checks a daemon starts with, so doctor refuses exactly what it would.
    ctx.config = await loadAppConfig(deps.paths.config);
  } catch (err) {
    ctx.config = undefined;
    ctx.configError = isFermixError(err) ? err : new FermixError("config_invalid", String(err));
  }
  return ctx;
}

/** A check that threw is a failed row, not a crashed doctor: the other rows still matter. */
function crashed(check: DoctorCheck, err: unknown): DoctorRow {
  const message = err instanceof Error ? err.message : String(err);
  return { id: check.id, title: check.id, status: "fail", detail: `the check itself failed: ${message}` };
}

function scrub(row: DoctorRow): DoctorRow {
  return { ...row, detail: redact(row.detail), ...(row.fix !== undefined ? { fix: redact(row.fix) } : {}) };
}
