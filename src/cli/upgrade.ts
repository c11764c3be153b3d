import { existsSync } from "node:fs";
import { isatty } from "node:tty";
import { processEnv } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { sourceRoot } from "../embedded/assets.ts";
import { FermixError } from "../error.ts";
import { RELEASES_MANIFEST_URL } from "../release/location.ts";
import { isVersion } from "../release/semver.ts";
import { hostTarget } from "../release/targets.ts";
import { spawn } from "../runtime/processes.ts";
import { embeddedTrust } from "../trust/embedded-keys.ts";
import { checkConfigWith } from "../upgrade/config-check.ts";
import { daemonControlFor } from "../upgrade/daemon-adapter.ts";
import { detectInstallMethod, refusePackageManaged } from "../upgrade/install-method.ts";
import { type UpgradeOutcome, upgrade } from "../upgrade/upgrade.ts";
import { BUILD_TARGET, VERSION } from "../version.ts";
import { defineCommand } from "./command.ts";
import { EXIT, reportError, UsageError } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";

export default defineCommand({
  meta: {
    name: "upgrade",
    description: "Upgrade this binary to the newest signed release",
    details:
      "Replace this binary with a newer signed release, restart the daemon on it, and roll back if it is not healthy within 10 s. Releases come from FERMIX_RELEASES_URL, else [fermix_core.upgrade] releases_url, else the project's release location. A Homebrew or dpkg install is upgraded by its package manager instead.",
  },
  args: {
    check: { type: "boolean", description: "only say whether a newer release exists" },
    version: { type: "string", valueHint: "V", description: "install release V instead of the latest" },
    "allow-downgrade": { type: "boolean", description: "let --version name a release older than this one" },
  },
  async run({ args }) {
    const version = args.version as string | undefined;
    if (version !== undefined && !isVersion(version)) {
      throw UsageError(`--version wants a release version like 0.2.0 (got "${version}")`);
    }
    try {
      if (sourceRoot()) {
        throw new FermixError(
          "not_installed",
          "fermix upgrade replaces an installed binary, and this is running from source; use git pull, or install a release",
        );
      }
      const binary = process.execPath;
      const method = await detectInstallMethod(binary);
      if (method.kind !== "standalone") throw refusePackageManaged(binary, method);

      const env = processEnv();
      const paths = fermixPaths(resolveHome(env));
      const config = existsSync(paths.config) ? await loadConfig(paths.config) : {};
      const manifestUrl = env.FERMIX_RELEASES_URL || config.fermix_core?.upgrade?.releases_url || RELEASES_MANIFEST_URL;
      const target = BUILD_TARGET ?? hostTarget()?.id;
      if (!target)
        throw new FermixError(
          "upgrade_refused",
          `there are no fermix releases for ${process.platform}-${process.arch}`,
        );

      const progress = downloadProgress(isatty(2));
      const outcome = await upgrade(
        { check: args.check === true, version, allowDowngrade: args["allow-downgrade"] === true },
        {
          paths: paths.upgrade,
          binary,
          currentVersion: VERSION,
          target,
          manifestUrl,
          fetch: (input, init) => fetch(input, init),
          trust: embeddedTrust(),
          daemon: daemonControlFor(env),
          runVersion,
          checkConfig: (staged) => checkConfigWith(staged, env),
          say: (line) => void writeErr(`${progress.clear()}fermix: ${line}\n`),
          onProgress: progress.update,
        },
      );
      await writeOut(render(outcome));
      return EXIT.ok;
    } catch (err) {
      return reportError(err);
    }
  },
});

function render(outcome: UpgradeOutcome): string {
  switch (outcome.kind) {
    case "up_to_date":
      return `fermix ${outcome.version} is up to date\n`;
    case "available":
      return `fermix ${outcome.from}: ${outcome.to} is available (fermix upgrade installs it)\n`;
    case "upgraded":
      return outcome.daemon === "restarted"
        ? `fermix: upgraded ${outcome.from} → ${outcome.to}; the daemon now runs ${outcome.to}\n`
        : `fermix: upgraded ${outcome.from} → ${outcome.to}; the daemon is not running (fermix start)\n`;
  }
}

/** A one-line `\r` progress meter on a terminal (nothing otherwise), redrawn at each whole percent. */
function downloadProgress(terminal: boolean) {
  let shown = -1;
  let drawn = false;
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  return {
    update(received: number, total?: number) {
      if (!terminal || !total) return;
      const percent = Math.floor((received / total) * 100);
      if (percent === shown) return;
      shown = percent;
      drawn = true;
      void writeErr(`\r  ${String(percent).padStart(3)}%  ${mb(received)} of ${mb(total)} MB`);
    },
    /** What to print before a whole line, so it does not land on the meter's line. */
    clear() {
      if (!drawn) return "";
      drawn = false;
      return "\n";
    },
  };
}

/** `<binary> --version`, trimmed; a binary that hangs or crashes is not the release it claims to be. */
async function runVersion(binary: string): Promise<string> {
  const child = spawn([binary, "--version"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
    cwd: "/",
    timeout: 10_000,
  });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) throw new Error(`exit ${code}`);
  return out.trim();
}
