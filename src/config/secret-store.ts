import { chmodSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { defineError } from "../error.ts";
import { writePrivateFileAtomically } from "../fs/write-private-file.ts";
import { fileSizeSync } from "../runtime/files.ts";
import { spawnSync } from "../runtime/processes.ts";
import { registerSecret } from "./secret-registry.ts";

/**
 * Writes the secrets that config.toml names as "@keyring". The coordinates mirror the reader in
 * secrets.ts exactly — the file store `secrets/<SLOT>` is looked at first, then the OS keyring — so
 * whatever `store` writes, `resolveSecret("@keyring", slot)` finds. A value never appears in an error,
 * a log line or a process's argv (except on macOS, see `keyringArgv`).
 */
export const SecretStoreFailed = defineError<{ slot: string }>("secret_store_failed");

export type RunCommand = (argv: string[], stdin?: string) => { ok: boolean; stdout: string; stderr: string };

export type SecretStoreDeps = {
  /** `$FERMIX_HOME/secrets`: the 0700 directory of the file store. */
  secretsDir: string;
  /** `[fermix_core] profile`: namespaces keyring entries so two installs don't overwrite each other's. */
  profile?: string;
  platform?: NodeJS.Platform;
  /** `[fermix_core] secret_store = "file"` skips the keyring. */
  prefer?: "keyring" | "file";
  run?: RunCommand;
};

export type SecretStore = {
  store(slot: string, value: string): Promise<{ where: "keyring" | "file" }>;
  /** Removes the secret from both places; absent is not an error. */
  clear(slot: string): Promise<void>;
  /** Whether the reader would find a value; the value itself is never handed out. */
  has(slot: string): boolean;
};

const SLOT = /^[A-Z][A-Z0-9_]*$/;

export function createSecretStore(deps: SecretStoreDeps): SecretStore {
  const run = deps.run ?? runCommand;
  const platform = deps.platform ?? process.platform;
  const keyring = deps.prefer !== "file" && (platform === "linux" || platform === "darwin");
  const argvFor = (op: KeyringOp, slot: string, value?: string) => keyringArgv(op, slot, platform, deps.profile, value);
  const fileOf = (slot: string) => join(deps.secretsDir, checkSlot(slot));

  return {
    async store(slot, value) {
      const file = fileOf(slot);
      if (!value) throw SecretStoreFailed(`refusing to store an empty secret for ${slot}`, { slot });
      registerSecret(value);
      if (keyring && writeKeyring(run, platform, slot, value, argvFor)) {
        // The reader looks at the file store first: a copy left there from an earlier fallback would win.
        rmSync(file, { force: true });
        return { where: "keyring" };
      }
      writeSecretFile(deps.secretsDir, file, value);
      // And a stale keyring entry would come back to life the day the file is removed.
      if (keyring) run(argvFor("clear", slot));
      return { where: "file" };
    },
    async clear(slot) {
      rmSync(fileOf(slot), { force: true });
      if (keyring) run(argvFor("clear", slot));
    },
    has(slot) {
      if (fileSizeSync(fileOf(slot)) > 0) return true;
      if (!keyring) return false;
      // secret-tool has no lookup that leaves the value out (`search` prints it too), so the value is read
      // into this process and dropped here; on macOS the attribute-only query never prints it.
      const result = run(argvFor("probe", slot));
      return result.ok && (platform === "darwin" || result.stdout.trim().length > 0);
    },
  };
}

type KeyringOp = "store" | "clear" | "probe";

function writeKeyring(
  run: RunCommand,
  platform: NodeJS.Platform,
  slot: string,
  value: string,
  argvFor: (op: KeyringOp, slot: string, value?: string) => string[],
): boolean {
  // macOS: delete then re-add so the item always carries the open ACL (-A) the headless daemon needs; an
  // item written without it makes `security` prompt for the login password on every read.
  if (platform === "darwin") run(argvFor("clear", slot));
  if (platform === "linux") return run(argvFor("store", slot), value).ok;
  return run(argvFor("store", slot, value)).ok;
}

/** The keyring coordinates secrets.ts reads: service `fermix[:<profile>]` (Linux) or `fermix[:<profile>]:<SLOT>` (macOS). */
function keyringArgv(
  op: KeyringOp,
  slot: string,
  platform: NodeJS.Platform,
  profile: string | undefined,
  value?: string,
): string[] {
  const named = profile && profile !== "general" ? `fermix:${profile}` : "fermix";
  if (platform === "darwin") {
    const service = `${named}:${slot}`;
    if (op === "clear") return ["security", "delete-generic-password", "-a", "fermix", "-s", service];
    if (op === "probe") return ["security", "find-generic-password", "-a", "fermix", "-s", service];
    // `security` takes the password only as an argument (its interactive -w prompt needs a terminal), so
    // on macOS the value is briefly visible in this child's argv to processes of the same user.
    return [
      "security",
      "add-generic-password",
      "-a",
      "fermix",
      "-s",
      service,
      "-l",
      "Fermix",
      "-w",
      value!,
      "-U",
      "-A",
    ];
  }
  const attributes = ["service", named, "account", "fermix", "env", slot];
  if (op === "clear") return ["secret-tool", "clear", ...attributes];
  if (op === "probe") return ["secret-tool", "lookup", ...attributes];
  // The value goes on stdin, never argv: argv is readable by every local user through /proc.
  return ["secret-tool", "store", "--label", "Fermix", ...attributes];
}

function checkSlot(slot: string): string {
  // The slot becomes a file name; anything but UPPER_SNAKE could walk out of the secrets directory.
  if (!SLOT.test(slot)) throw SecretStoreFailed(`"${slot}" is not a secret name (UPPER_SNAKE)`, { slot });
  return slot;
}

/** One 0600 file per secret in a 0700 directory, replaced atomically so a reader never sees half a value. */
function writeSecretFile(dir: string, file: string, value: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir keeps an existing directory's mode; the reader accepts 0600 files, but a listable directory leaks names.
  if ((statSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  writePrivateFileAtomically(file, value);
}

function runCommand(argv: string[], stdin?: string): { ok: boolean; stdout: string; stderr: string } {
  try {
    const proc = spawnSync(argv, { stdin: stdin ?? "ignore", stdout: "pipe", stderr: "pipe", timeout: 10_000 });
    return { ok: proc.exitCode === 0, stdout: proc.stdout, stderr: proc.stderr };
  } catch {
    // Not installed (no secret-tool on a server): the caller falls back to the file store.
    return { ok: false, stdout: "", stderr: "" };
  }
}
