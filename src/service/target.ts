import { homedir } from "node:os";
import { join } from "node:path";
import type { Env } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { type ServiceAccount, systemServiceAccount } from "./account.ts";
import { plistEnvironmentEntry, renderLaunchdPlist } from "./launchd-plist.ts";
import type { ServiceKind, ServiceScope, ServiceTarget } from "./service-target.ts";
import { renderSystemdUnit, systemdEnvironmentLine } from "./systemd-unit.ts";
import { serviceEnvironment } from "./unit-env.ts";

/** What this binary would install: the target and the exact bytes of its unit. */
export type ServicePlan = { target: ServiceTarget; content: string; home: string };

export const SERVICE_LABEL = "io.tezra.fermix";
export const SYSTEMD_UNIT_NAME = "fermix.service";

export const UnsupportedPlatform = (platform: string) =>
  new FermixError("unsupported_platform", `fermix has no service manager for ${platform} (systemd or launchd)`);

export function serviceKind(platform: string = process.platform): ServiceKind {
  if (platform === "linux") return "systemd";
  if (platform === "darwin") return "launchd";
  throw UnsupportedPlatform(platform);
}

/**
 * The unit's path. User scope derives from HOME; system scope from `systemRoot` ("/" for real, a temp
 * dir in tests).
 */
export function serviceTarget(opts: {
  kind: ServiceKind;
  scope: ServiceScope;
  env: Env;
  systemRoot?: string;
}): ServiceTarget {
  const { kind, scope } = opts;
  const userHome = opts.env.HOME || homedir();
  const root = opts.systemRoot ?? "/";
  let path: string;
  if (kind === "systemd") {
    path =
      scope === "user"
        ? join(userHome, ".config", "systemd", "user", SYSTEMD_UNIT_NAME)
        : join(root, "etc", "systemd", "system", SYSTEMD_UNIT_NAME);
  } else {
    path =
      scope === "user"
        ? join(userHome, "Library", "LaunchAgents", `${SERVICE_LABEL}.plist`)
        : join(root, "Library", "LaunchDaemons", `${SERVICE_LABEL}.plist`);
  }
  return { kind, scope, path };
}

/**
 * Where a supervised or detached daemon's stdout/stderr go. Not logs/fermix.log: the daemon writes every
 * log line there itself *and* to stderr, so capturing stderr into it would double each line. What lands
 * here is what never reaches the logger — a crash before it exists, a runtime panic.
 */
export function daemonOutputPath(home: string): string {
  return join(fermixPaths(home).logs, "daemon-output.log");
}

/**
 * The unit this binary would write for `scope`, for the FERMIX_HOME and allowlisted settings in `env`. A system
 * unit runs as a login account (`account`, else the one systemServiceAccount finds), with that account's
 * FERMIX_HOME unless one is set explicitly.
 */
export function planService(opts: {
  scope: ServiceScope;
  env: Env;
  binary: string;
  platform?: string;
  systemRoot?: string;
  account?: ServiceAccount;
  uid?: number;
}): ServicePlan {
  const kind = serviceKind(opts.platform);
  const target = serviceTarget({ kind, scope: opts.scope, env: opts.env, systemRoot: opts.systemRoot });
  const account =
    opts.scope === "system" ? (opts.account ?? systemServiceAccount(opts.env, { uid: opts.uid })) : undefined;
  const home = account ? resolveHome({ ...opts.env, HOME: account.home }) : resolveHome(opts.env);
  const environment = serviceEnvironment({ binary: opts.binary, home, env: opts.env });
  const content =
    kind === "systemd"
      ? renderSystemdUnit({ binary: opts.binary, scope: opts.scope, environment, user: account?.user })
      : renderLaunchdPlist({
          label: SERVICE_LABEL,
          binary: opts.binary,
          environment,
          outputPath: daemonOutputPath(home),
          user: account?.user,
        });
  return { target, content, home };
}

/**
 * Whether an installed unit runs the daemon of this FERMIX_HOME. A unit for ~/.fermix must not be started
 * or stopped on behalf of FERMIX_HOME=~/.fermix-dev.
 */
export function unitServesHome(kind: ServiceKind, unitText: string, home: string): boolean {
  if (kind === "systemd") return unitText.split("\n").includes(systemdEnvironmentLine("FERMIX_HOME", home));
  return unitText.includes(plistEnvironmentEntry("FERMIX_HOME", home));
}

/** "systemd user service", "launchd system daemon": how messages name a target. */
export function describeTarget(target: Pick<ServiceTarget, "kind" | "scope">): string {
  if (target.kind === "launchd") return target.scope === "user" ? "launchd agent" : "launchd daemon";
  return `systemd ${target.scope} service`;
}
