import { statfsSync } from "node:fs";
import type { Env } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { loadCatalog } from "../plugins/catalog/load-catalog.ts";
import { createDaemonClient } from "../protocol/client.ts";
import { PROBE_TIMEOUT_MS } from "../providers/probe.ts";
import { spawnSync, which } from "../runtime/processes.ts";
import { serviceBinary } from "../service/self.ts";
import { VERSION } from "../version.ts";
import type { DoctorDeps, RunResult } from "./check.ts";
import { installedServiceUnit } from "./service-unit.ts";

/** The real machine, wired once for the CLI; tests build their own DoctorDeps. */
export function defaultDoctorDeps(env: Env, opts: { full: boolean }): DoctorDeps {
  const paths = fermixPaths(resolveHome(env));
  return {
    env,
    paths,
    version: VERSION,
    full: opts.full,
    fetch,
    now: Date.now,
    probeTimeoutMs: PROBE_TIMEOUT_MS,
    platform: process.platform,
    run: runCommand,
    which: (command) => which(command, env.PATH ? { PATH: env.PATH } : {}),
    statfs: (path) => statfsSync(path),
    daemonStatus: () => createDaemonClient(paths.socket).status(),
    daemonPlugins: () => createDaemonClient(paths.socket).plugins(),
    daemonChannels: () => createDaemonClient(paths.socket).channels(),
    serviceUnitState: async () => installedServiceUnit(env, process.platform, serviceBinary),
    loadCatalog: () => loadCatalog(),
  };
}

function runCommand(argv: string[]): RunResult {
  try {
    const proc = spawnSync(argv, { stdout: "pipe", stderr: "pipe", timeout: 10_000 });
    return { ok: proc.exitCode === 0, stdout: proc.stdout, stderr: proc.stderr };
  } catch {
    return { ok: false, stdout: "", stderr: "could not be run" };
  }
}
