import { type SpawnSyncResult, spawnSync } from "../runtime/processes.ts";
import { systemPath } from "./child-env.ts";
import type { Isolation } from "./types.ts";

export type IsolationInfo = { isolation: Isolation; binary?: string; note: string };

/**
 * Which jail wraps commands. bubblewrap must also pass a self-test: it is installed on hosts where user
 * namespaces are switched off, and there every command would fail; such a host is treated like one
 * without bwrap, and `status()`/`explain()` say so. sandbox-exec ships with macOS and is taken as found.
 */
export function detectIsolation(deps: {
  platform: NodeJS.Platform;
  which: (cmd: string) => string | null;
}): IsolationInfo {
  if (deps.platform === "linux") {
    const bwrap = deps.which("bwrap");
    if (!bwrap) {
      return {
        isolation: "none",
        note: "bwrap is not installed; commands run unisolated (tool paths are still checked)",
      };
    }
    const failure = selfTestOnce(bwrap, deps.platform);
    if (failure) {
      return { isolation: "none", note: `${bwrap} failed its self-test (${failure}); commands run unisolated` };
    }
    return {
      isolation: "bubblewrap",
      binary: bwrap,
      note: `${bwrap}: roots writable, everything else read-only, credentials masked, network shared`,
    };
  }
  if (deps.platform === "darwin") {
    const seatbelt = deps.which("sandbox-exec");
    if (seatbelt) {
      return { isolation: "sandbox-exec", binary: seatbelt, note: `${seatbelt}: writes limited to the roots` };
    }
  }
  return { isolation: "none", note: `no sandbox tool for ${deps.platform}; commands run unisolated` };
}

// The sandbox is rebuilt whenever config.toml changes; the answer for one bwrap binary does not.
const selfTests = new Map<string, string | null>();

function selfTestOnce(bwrap: string, platform: NodeJS.Platform): string | null {
  if (!selfTests.has(bwrap)) selfTests.set(bwrap, selfTest(bwrap, platform));
  return selfTests.get(bwrap) ?? null;
}

function selfTest(bwrap: string, platform: NodeJS.Platform): string | null {
  const argv = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--share-net"];
  let result: SpawnSyncResult;
  try {
    result = spawnSync([bwrap, ...argv, "--die-with-parent", "--new-session", "true"], {
      env: { PATH: systemPath(platform) },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      timeout: 5000,
    });
  } catch (err) {
    return (err as Error).message;
  }
  if (result.exitCode === 0) return null;
  return result.stderr.trim().split("\n")[0] || `exit status ${result.exitCode ?? "unknown"}`;
}
