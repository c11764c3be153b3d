import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isProcessAlive } from "../../src/fs/lock-files.ts";

/**
 * Stand-ins for systemctl and launchctl: shell scripts put first on the PATH the code under test gets, so
 * the real managers (this machine has /usr/bin/systemctl) are never run. Each call appends its argv as one
 * line to `calls` (`systemctl --user enable --now fermix.service`).
 *
 * The fakes keep a little state in their directory: launchctl `print` answers only while a job is
 * bootstrapped; systemctl `is-active` answers what `setActive` last wrote. With `daemon` set they also do
 * what the real manager would — `<daemon> run` in the background on start/enable/bootstrap/kickstart, a
 * SIGTERM to the pid in $FERMIX_HOME/daemon.lock on stop/disable/bootout.
 */
export type FakeManager = {
  dir: string;
  /** The PATH to give the code under test: the fakes first, then the system dirs. */
  path: string;
  /** Env entries the fakes read (FAKE_MANAGER_DIR, and FAKE_DAEMON_BIN when given). */
  env: Record<string, string>;
  calls(): string[];
  setActive(state: string): void;
  /** Makes the next calls of a verb fail with this exit code and stderr. */
  failOn(verb: string, code: number, stderr: string): void;
  remove(): void;
};

const SCRIPT = `#!/bin/sh
name=$(basename "$0")
dir="$FAKE_MANAGER_DIR"
printf '%s' "$name" >> "$dir/calls"
for a in "$@"; do printf ' %s' "$a" >> "$dir/calls"; done
printf '\\n' >> "$dir/calls"

# the verb: first argument that is not an option
verb=""
for a in "$@"; do case "$a" in -*) ;; *) verb="$a"; break ;; esac; done
if [ -f "$dir/fail-$verb" ]; then
  cat "$dir/fail-$verb" >&2
  exit "$(cat "$dir/fail-$verb.code")"
fi

start_daemon() {
  [ -n "$FAKE_DAEMON_BIN" ] || return 0
  "$FAKE_DAEMON_BIN" run </dev/null >>"$dir/daemon.out" 2>&1 &
}
stop_daemon() {
  [ -n "$FAKE_DAEMON_BIN" ] || return 0
  [ -f "$FERMIX_HOME/daemon.lock" ] || return 0
  pid=$(cat "$FERMIX_HOME/daemon.lock")
  kill -TERM "$pid" 2>/dev/null || return 0
  # like the real managers, a stop returns once the process has gone
  while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
}

case "$name $verb" in
  "systemctl is-active")
    state=$(cat "$dir/active" 2>/dev/null || echo inactive)
    echo "$state"
    [ "$state" = active ] && exit 0 || exit 3 ;;
  "systemctl start"|"systemctl enable") [ "$verb" = start ] || [ "$2" = --now ] || [ "$3" = --now ] && start_daemon ;;
  "systemctl stop"|"systemctl disable") stop_daemon ;;
  "systemctl restart") stop_daemon; start_daemon ;;
  "launchctl print")
    if [ -f "$dir/loaded" ]; then printf '%s = {\\n\\tstate = running\\n\\tpid = 4242\\n}\\n' "$2"; exit 0; fi
    echo "Could not find service in domain for port" >&2; exit 113 ;;
  "launchctl bootstrap") touch "$dir/loaded"; start_daemon ;;
  "launchctl bootout") rm -f "$dir/loaded"; stop_daemon ;;
  "launchctl kickstart") start_daemon ;;
esac
exit 0
`;

export function fakeManager(opts: { daemon?: string } = {}): FakeManager {
  const dir = mkdtempSync(join(tmpdir(), "fx-mgr-"));
  const bin = join(dir, "bin");
  mkdirSync(bin);
  for (const name of ["systemctl", "launchctl"]) {
    writeFileSync(join(bin, name), SCRIPT);
    chmodSync(join(bin, name), 0o755);
  }
  const env: Record<string, string> = { FAKE_MANAGER_DIR: dir };
  if (opts.daemon) env.FAKE_DAEMON_BIN = opts.daemon;
  return {
    dir,
    path: `${bin}:/usr/bin:/bin`,
    env,
    calls: () => (existsSync(join(dir, "calls")) ? readFileSync(join(dir, "calls"), "utf8").trimEnd().split("\n") : []),
    setActive: (state) => writeFileSync(join(dir, "active"), state),
    failOn(verb, code, stderr) {
      writeFileSync(join(dir, `fail-${verb}`), stderr);
      writeFileSync(join(dir, `fail-${verb}.code`), String(code));
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Ends whatever daemon still holds this FERMIX_HOME's lock — one a test started detached is nobody's
 * child here, so its end is seen by polling. A test's afterEach calls it, so no daemon outlives a test.
 */
export async function killDaemonOf(home: string): Promise<void> {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(join(home, "daemon.lock"), "utf8"), 10);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isProcessAlive(pid)) return;
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (isProcessAlive(pid) && Date.now() < deadline) await Bun.sleep(20);
  if (isProcessAlive(pid)) process.kill(pid, "SIGKILL");
}
