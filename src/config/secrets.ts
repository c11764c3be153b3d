import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { defineError } from "../error.ts";
import { fileSizeSync } from "../runtime/files.ts";
import { spawnSync } from "../runtime/processes.ts";
import type { Env } from "./env.ts";
import { registerSecret } from "./secret-registry.ts";
import type { SecretRef } from "./sections/secret-ref.ts";

/** `$NAME` or `${NAME}`: a secret read from the environment rather than written in config.toml. */
const ENV_REFERENCE = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/;

export function isEnvReference(ref: string): boolean {
  return ENV_REFERENCE.test(ref);
}

export const SecretUnavailable = defineError<{ slot: string }>("secret_unavailable");

export type SecretDeps = {
  env: Env;
  /** `$FERMIX_HOME/secrets`: the file store used where no OS keyring is reachable. */
  secretsDir: string;
  profile?: string;
  platform?: NodeJS.Platform;
  run?: (argv: string[]) => { ok: boolean; stdout: string };
};

/**
 * Resolves a configured secret — the one place the process does — and registers the value for redaction
 * (secret-registry.ts). `slot` is the secret's env-style name (OPENAI_API_KEY): it names the keyring entry and
 * appears in errors instead of the value, which never does.
 */
export function resolveSecret(ref: SecretRef, slot: string, deps: SecretDeps): string {
  const value = readSecret(ref, slot, deps);
  registerSecret(value);
  return value;
}

/**
 * A secret read straight from an environment variable when config.toml names none (OPENAI_API_KEY,
 * OPIK_API_KEY, …): undefined when unset or blank; registered for redaction like a resolved one.
 */
export function envSecret(env: Env, name: string): string | undefined {
  const value = env[name];
  if (!value?.trim()) return undefined;
  registerSecret(value);
  return value;
}

function readSecret(ref: SecretRef, slot: string, deps: SecretDeps): string {
  if (typeof ref === "string") {
    if (ref === "@keyring") return fromKeyring(slot, deps);
    const envRef = ENV_REFERENCE.exec(ref);
    if (envRef) return fromEnv(envRef[1]!, slot, deps);
    return ref;
  }
  switch (ref.source) {
    case "env":
      return fromEnv(ref.name, slot, deps);
    case "file":
      return fromFile(ref.path, slot);
    case "command":
      return fromCommand(ref.command, slot, deps);
  }
}

function fromEnv(name: string, slot: string, deps: SecretDeps): string {
  const value = deps.env[name];
  if (!value) throw SecretUnavailable(`${slot} points at the environment variable ${name}, which is not set`, { slot });
  return value;
}

function fromFile(path: string, slot: string): string {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    throw SecretUnavailable(`${slot} points at the file ${path}, which cannot be read`, { slot });
  }
  // A secret others can read is already leaked; refuse it rather than use it quietly.
  if (mode & 0o077) {
    throw SecretUnavailable(`${slot}: ${path} is readable by other users; run chmod 600 ${path}`, { slot });
  }
  return readTrimmed(path);
}

function fromCommand(argv: string[], slot: string, deps: SecretDeps): string {
  const result = (deps.run ?? runCommand)(argv);
  const value = result.stdout.trim();
  if (!result.ok || !value) {
    throw SecretUnavailable(`${slot}: the command \`${argv[0]}\` did not print a secret`, { slot });
  }
  return value;
}

function fromKeyring(slot: string, deps: SecretDeps): string {
  const stored = join(deps.secretsDir, slot);
  if (fileSizeSync(stored) > 0) return fromFile(stored, slot);
  const service = deps.profile && deps.profile !== "general" ? `fermix:${deps.profile}:${slot}` : `fermix:${slot}`;
  const platform = deps.platform ?? process.platform;
  const argv =
    platform === "darwin"
      ? ["security", "find-generic-password", "-a", "fermix", "-s", service, "-w"]
      : [
          "secret-tool",
          "lookup",
          "service",
          deps.profile && deps.profile !== "general" ? `fermix:${deps.profile}` : "fermix",
          "account",
          "fermix",
          "env",
          slot,
        ];
  const result = (deps.run ?? runCommand)(argv);
  const value = result.stdout.trim();
  if (result.ok && value) return value;
  throw SecretUnavailable(
    `${slot} is set to "@keyring" but no keyring entry or ${stored} exists; store it there (mode 600) or set ${slot} in the environment`,
    { slot },
  );
}

function readTrimmed(path: string): string {
  return readFileSync(path, "utf8").trim();
}

function runCommand(argv: string[]): { ok: boolean; stdout: string } {
  try {
    const proc = spawnSync(argv, { stdout: "pipe", timeout: 10_000 });
    return { ok: proc.exitCode === 0, stdout: proc.stdout };
  } catch {
    return { ok: false, stdout: "" };
  }
}
