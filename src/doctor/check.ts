import type { ChannelAdapter, ChannelDeps } from "../channels/channel.ts";
import type { OpenDriver } from "../computer-use/driver-contract.ts";
import type { Env } from "../config/env.ts";
import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { FermixError } from "../error.ts";
import type { Catalog } from "../plugins/catalog/catalog-contract.ts";
import type { ChannelsReport, PluginsReport, Status } from "../protocol/schemas.ts";

export type RowStatus = "ok" | "warn" | "fail";

/** One line of `fermix doctor`: what was checked, how it stands, and on warn/fail the one thing to do. */
export type DoctorRow = { id: string; title: string; status: RowStatus; detail: string; fix?: string };

export type RunResult = { ok: boolean; stdout: string; stderr: string };

/** What the service module reports about the installed launchd/systemd unit. */
export type ServiceUnitState = { installed: boolean; drifted?: boolean; path?: string };

/** Everything the checks touch outside their own code, so tests hand in fakes. */
export type DoctorDeps = {
  env: Env;
  paths: FermixPaths;
  /** This binary's version (src/version.ts). */
  version: string;
  /** `--full`: the slower, deeper checks too. */
  full: boolean;
  fetch: typeof fetch;
  now: () => number;
  probeTimeoutMs: number;
  platform: NodeJS.Platform;
  /** Runs a short command (secret-tool, security); never throws. */
  run: (argv: string[]) => RunResult;
  which: (command: string) => string | null;
  statfs: (path: string) => { bsize: number; bavail: number };
  daemonStatus: () => Promise<Status>;
  /** The running daemon's plugins with their live states (absent in tests that have no daemon). */
  daemonPlugins?: () => Promise<PluginsReport>;
  /** The running daemon's chat channels with their states (absent: no daemon asked). */
  daemonChannels?: () => Promise<ChannelsReport>;
  /** The channel adapters by name (the registry's; tests hand in a test channel). */
  channels?: Record<string, (deps: ChannelDeps) => Promise<ChannelAdapter>>;
  serviceUnitState: () => Promise<ServiceUnitState>;
  loadCatalog: () => Promise<Catalog>;
  /** Opens the X display for the computer-use row (tests hand in a fake desktop); absent: this build's driver. */
  openDesktop?: OpenDriver;
};

/** The deps plus what every check shares: config.toml, loaded once. */
export type DoctorContext = DoctorDeps & {
  config?: Config;
  configError?: FermixError;
  configExists: boolean;
  /** `~/.fermix/config.toml` rather than the absolute path. */
  display(path: string): string;
};

export type DoctorCheck = { id: string; run(ctx: DoctorContext): Promise<DoctorRow[]> };

export function defineCheck(check: DoctorCheck): DoctorCheck {
  return check;
}

/** The row shown for a check that needs config.toml when it did not load. */
export function skippedForConfig(id: string, title: string): DoctorRow {
  return { id, title, status: "warn", detail: "not checked: config.toml did not load", fix: "fix config.toml first" };
}
