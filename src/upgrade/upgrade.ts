import { chmodSync, copyFileSync, mkdirSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { defineError, FermixError } from "../error.ts";
import { removeQuietly } from "../fs/lock-files.ts";
import { acquirePidLock } from "../fs/pid-lock.ts";
import type { ReleaseArtifact } from "../release/manifest.ts";
import { pickArtifact } from "../release/manifest.ts";
import { compareVersions } from "../release/semver.ts";
import { verifyRelease } from "../release/statement.ts";
import { artifactName } from "../release/targets.ts";
import type { TrustMaterial } from "../trust/trust-material.ts";
import { downloadTo, fetchBundle, fetchManifest } from "./download.ts";
import { appendUpgradeRecord, type UpgradeStatus } from "./history.ts";
import { recoverInterruptedUpgrade, restorePrevious, sha256Of, writeJournal } from "./journal.ts";

/** The release was refused before anything changed: older, unsigned, tampered, for another machine… */
export const UpgradeRefused = defineError<{ reason: string }>("upgrade_refused");
/** The new binary was installed but did not come up healthy; the old one is back. */
export const UpgradeRolledBack = defineError<{ reason: string }>("upgrade_rolled_back");
export const UpgradeBusy = defineError<{ pid: number }>("upgrade_busy");

export type DaemonHealth = { running: true; version: string; pid: number } | { running: false };

/** What the upgrade needs of the daemon and its service; the CLI wires src/service/daemon-control.ts. */
export type DaemonControl = {
  health(): Promise<DaemonHealth>;
  /** Whether a service unit supervises the daemon (then it is restarted through the manager). */
  serviceInstalled(): Promise<boolean>;
  /** Stops whatever runs and starts `binary`'s daemon. */
  restart(binary: string): Promise<void>;
  waitFor(version: string, timeoutMs: number): Promise<{ ok: true } | { ok: false; reason: string }>;
};

export type UpgradeDeps = {
  paths: { previous: string; history: string; lock: string; journal: string };
  /** The installed binary being replaced (process.execPath of a compiled fermix). */
  binary: string;
  currentVersion: string;
  target: string;
  manifestUrl: string;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  trust: TrustMaterial;
  daemon: DaemonControl;
  /** Runs `binary --version` and returns what it printed (trimmed). */
  runVersion: (binary: string) => Promise<string>;
  /**
   * The config check of the daemon `binary` starts (src/upgrade/config-check.ts): throws the sentence it would stop
   * on; "unchecked" for a release that has no check.
   */
  checkConfig: (binary: string) => Promise<"checked" | "unchecked">;
  now?: () => number;
  /** Progress for people: one line per step. */
  say?: (line: string) => void;
  /** Bytes of the binary received so far (and the total, when the server said). */
  onProgress?: (received: number, total?: number) => void;
  healthTimeoutMs?: number;
  /** Called as each step completes; the crash tests freeze a child here and SIGKILL it. */
  onStage?: (stage: UpgradeStage) => void | Promise<void>;
};

export type UpgradeStage = "locked" | "downloaded" | "verified" | "previous_saved" | "swapped" | "restarted";

export type UpgradeRequest = { check?: boolean; version?: string; allowDowngrade?: boolean };

export type UpgradeOutcome =
  | { kind: "up_to_date"; version: string }
  | { kind: "available"; from: string; to: string }
  | { kind: "upgraded"; from: string; to: string; sha256: string; daemon: "restarted" | "not_running" };

const HEALTH_TIMEOUT_MS = 10_000;

/**
 * `fermix upgrade`: manifest → newer version → download beside the binary → sha256 → signature bound to
 * this version and target → the new binary's --version → `.previous` → rename(2) → restart → health with
 * the new version, rolling back to `.previous` on any failure after the swap. Every attempt is recorded.
 */
export async function upgrade(request: UpgradeRequest, deps: UpgradeDeps): Promise<UpgradeOutcome> {
  const say = deps.say ?? (() => {});
  const now = deps.now ?? Date.now;
  // A binary installed a moment ago may never have run: FERMIX_HOME (lock, history, .previous) may not exist.
  mkdirSync(dirname(deps.paths.lock), { recursive: true, mode: 0o700 });
  const release = await acquirePidLock(deps.paths.lock, 0, (pid) =>
    UpgradeBusy(`another fermix upgrade (pid ${pid}) is running; wait for it to finish`, { pid }),
  );
  try {
    const health = await deps.daemon.health();
    const recovered = recoverInterruptedUpgrade(deps.paths, {
      runningVersion: deps.currentVersion,
      asDaemon: false,
      daemonVersion: health.running ? health.version : undefined,
      now,
    });
    if (recovered.action !== "none") say(recovered.message);
    await deps.onStage?.("locked");
    return await run(request, deps, say, now);
  } finally {
    release();
  }
}

async function run(
  request: UpgradeRequest,
  deps: UpgradeDeps,
  say: (line: string) => void,
  now: () => number,
): Promise<UpgradeOutcome> {
  const from = deps.currentVersion;
  let to = request.version ?? "(latest)";
  let sha256: string | null = null;
  const record = (status: UpgradeStatus, reason?: string) =>
    appendUpgradeRecord(deps.paths.history, {
      from,
      to,
      timestamp: new Date(now()).toISOString(),
      sha256,
      status,
      ...(reason ? { reason } : {}),
    });

  const staging = join(dirname(deps.binary), `.${basename(deps.binary)}.upgrade-${process.pid}`);
  let artifact: ReleaseArtifact;
  try {
    say(`checking ${deps.manifestUrl}`);
    const manifest = await fetchManifest(deps.manifestUrl, deps.fetch);
    const picked = pickArtifact(manifest, deps.target, request.version);
    to = picked.release.version;
    artifact = picked.artifact;
    const order = compareVersions(to, from);
    if (order === 0) return { kind: "up_to_date", version: from };
    if (request.check) return order > 0 ? { kind: "available", from, to } : { kind: "up_to_date", version: from };
    if (order < 0 && !request.allowDowngrade) {
      throw UpgradeRefused(
        `${to} is older than the installed ${from}; refusing to downgrade (pass --allow-downgrade to install it anyway)`,
        { reason: "older" },
      );
    }

    writeJournal(deps.paths.journal, {
      phase: "staged",
      from,
      to,
      binary: deps.binary,
      staging,
      sha256: null,
      started_at: new Date(now()).toISOString(),
    });
    say(`downloading ${to} for ${deps.target}`);
    const got = await downloadTo(artifact.url, staging, deps.fetch, deps.onProgress);
    sha256 = got.sha256;
    await deps.onStage?.("downloaded");
    if (got.sha256 !== artifact.sha256) {
      throw UpgradeRefused(
        `the download's sha256 is ${got.sha256}, but releases.json says ${artifact.sha256}; the file was damaged or tampered with`,
        { reason: "sha256_mismatch" },
      );
    }
    const bundle = await fetchBundle(artifact.sig_url, deps.fetch).catch((err) => {
      throw UpgradeRefused(`no usable signature for ${to}: ${(err as Error).message}; refusing an unverified binary`, {
        reason: "bundle_missing",
      });
    });
    await verifyRelease({
      claim: { name: artifactName({ id: deps.target }), version: to, target: deps.target, sha256: got.sha256 },
      bundle,
      trust: deps.trust,
    }).catch((err) => {
      throw UpgradeRefused(
        `the signature does not vouch for fermix ${to} on ${deps.target}: ${(err as Error).message}`,
        { reason: "signature_invalid" },
      );
    });
    say(`verified: sha256 ${got.sha256.slice(0, 12)}… and a signature for ${to} on ${deps.target}`);
    chmodSync(staging, 0o755);
    const printed = await deps.runVersion(staging).catch((err) => `failed: ${(err as Error).message}`);
    if (printed !== to) {
      throw UpgradeRefused(`the new binary's --version printed ${JSON.stringify(printed)}, not ${to}`, {
        reason: "version_mismatch",
      });
    }
    await deps.onStage?.("verified");
  } catch (err) {
    removeQuietly(staging);
    removeQuietly(deps.paths.journal);
    if (request.check) throw err;
    record("refused", (err as Error).message);
    throw err;
  }

  const before = await deps.daemon.health();
  const supervised = await deps.daemon.serviceInstalled();
  if (before.running || supervised) await checkNewConfig(deps, staging, to, say, record);
  copyFileSync(deps.binary, deps.paths.previous);
  chmodSync(deps.paths.previous, 0o755);
  await deps.onStage?.("previous_saved");
  writeJournal(deps.paths.journal, {
    phase: "swapped",
    from,
    to,
    binary: deps.binary,
    staging,
    sha256,
    previous_sha256: sha256Of(deps.paths.previous),
    started_at: new Date(now()).toISOString(),
  });
  renameSync(staging, deps.binary);
  say(`installed ${to} at ${deps.binary} (the previous binary is kept at ${deps.paths.previous})`);
  await deps.onStage?.("swapped");

  if (!before.running && !supervised) {
    removeQuietly(deps.paths.journal);
    record("succeeded");
    return { kind: "upgraded", from, to, sha256: sha256!, daemon: "not_running" };
  }
  const failure = await restartAndWait(deps, to, say);
  await deps.onStage?.("restarted");
  if (!failure) {
    removeQuietly(deps.paths.journal);
    record("succeeded");
    return { kind: "upgraded", from, to, sha256: sha256!, daemon: "restarted" };
  }

  say(`${to} did not come up healthy (${failure}); rolling back to ${from}`);
  restorePrevious(deps.paths.previous, deps.binary);
  removeQuietly(deps.paths.journal);
  const back = await restartAndWait(deps, from, say);
  if (back) {
    record("failed", `${failure}; after rolling back, ${from} did not come up either: ${back}`);
    throw new FermixError(
      "upgrade_failed",
      `${to} failed its health check (${failure}) and after restoring ${from} the daemon did not come up either (${back}); run fermix doctor, then fermix start`,
    );
  }
  record("rolled_back", failure);
  throw UpgradeRolledBack(`${to} failed its health check (${failure}); rolled back, ${from} is running again`, {
    reason: failure,
  });
}

/**
 * Before the swap and the stop: the new release's daemon must start on this config.toml, or the upgrade is refused
 * with its sentence and the running daemon is left alone (restarting onto it would stop the daemon, then roll back).
 */
async function checkNewConfig(
  deps: UpgradeDeps,
  staging: string,
  to: string,
  say: (line: string) => void,
  record: (status: UpgradeStatus, reason?: string) => void,
): Promise<void> {
  let checked: "checked" | "unchecked";
  try {
    checked = await deps.checkConfig(staging);
  } catch (err) {
    removeQuietly(staging);
    removeQuietly(deps.paths.journal);
    const message = `fermix ${to} would not start on this config: ${(err as Error).message}; nothing was changed and the daemon was not stopped`;
    record("refused", message);
    throw UpgradeRefused(message, { reason: "config_invalid" });
  }
  if (checked === "unchecked") say(`${to} has no config check; its start is watched instead`);
}

/** Undefined when the daemon answered with `version` in time; otherwise why not. */
async function restartAndWait(deps: UpgradeDeps, version: string, say: (line: string) => void) {
  say(`restarting the daemon on ${version}`);
  try {
    await deps.daemon.restart(deps.binary);
  } catch (err) {
    return `the restart failed: ${(err as Error).message}`;
  }
  const seen = await deps.daemon.waitFor(version, deps.healthTimeoutMs ?? HEALTH_TIMEOUT_MS);
  return seen.ok ? undefined : seen.reason;
}
