import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import * as v from "valibot";
import { registerSecret } from "../../config/secret-registry.ts";
import { defineError } from "../../error.ts";
import { writePrivateFileAtomically } from "../../fs/write-private-file.ts";
import { acquireStoreLock, PluginStoreBusy } from "../store/store-lock.ts";

/**
 * Plugin OAuth tokens in `$FERMIX_HOME/auth.json` (0600), under a `plugins` key so the file can hold other
 * sections (LLM provider logins) that this module keeps untouched. Reads take no lock: a write is a
 * temp file renamed over the old one, so a reader sees the whole old or the whole new file. Writes
 * read-modify-write under a cross-process lock, so a daemon's refresh and a CLI login don't lose each other's.
 */
export const AuthFileInvalid = defineError<{ file: string }>("auth_file_invalid");
export const AuthFileBusy = defineError<{ file: string; pid: number }>("auth_file_busy");

export const StoredToken = v.object({
  provider: v.string(),
  access_token: v.string(),
  refresh_token: v.optional(v.string()),
  /** ISO 8601; absent when the provider did not say (GitHub OAuth app tokens never expire). */
  expires_at: v.optional(v.string()),
  scopes: v.array(v.string()),
  account: v.optional(v.string()),
  obtained_at: v.string(),
  /** Set when the provider refused the refresh token: only a new login helps. */
  invalidated: v.optional(v.boolean()),
});
export type StoredToken = v.InferOutput<typeof StoredToken>;

const AuthFile = v.looseObject({ plugins: v.optional(v.record(v.string(), StoredToken)) });
type AuthFile = v.InferOutput<typeof AuthFile>;

export type TokenState = "valid" | "invalidated";

export type TokenStore = {
  file: string;
  get(name: string): StoredToken | undefined;
  put(name: string, token: StoredToken): Promise<void>;
  /** Returns whether there was a token to remove. */
  remove(name: string): Promise<boolean>;
  markInvalidated(name: string): Promise<void>;
  /**
   * Runs `body` while no other process runs one for `name`: a refresh holds it across the network call so
   * two processes don't both spend a rotating refresh token (the loser would see invalid_grant).
   */
  exclusive<T>(name: string, body: () => Promise<T>): Promise<T>;
  /** undefined: never connected. "invalidated" also covers a token long dead that nothing can refresh. */
  state(name: string, now?: Date): TokenState | undefined;
};

export type TokenStoreDeps = { lockTimeoutMs?: number };

// A token this far past its expiry with no refresh token will not come back; say so before a tool call fails.
const STALE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/** `file` is `$FERMIX_HOME/auth.json`. */
export function createTokenStore(file: string, deps: TokenStoreDeps = {}): TokenStore {
  const lockTimeoutMs = deps.lockTimeoutMs ?? 15_000;

  async function lock(path: string, what: string): Promise<() => void> {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    try {
      return await acquireStoreLock(path, lockTimeoutMs);
    } catch (err) {
      if (!PluginStoreBusy.is(err)) throw err;
      throw AuthFileBusy(`${what} is busy in another fermix process (pid ${err.data.pid}); try again`, {
        file,
        pid: err.data.pid,
      });
    }
  }

  async function update(change: (plugins: Record<string, StoredToken>) => boolean): Promise<boolean> {
    const release = await lock(`${file}.lock`, file);
    try {
      const current = read(file);
      const plugins = { ...(current.plugins ?? {}) };
      if (!change(plugins)) return false;
      writePrivateFileAtomically(file, `${JSON.stringify({ ...current, plugins }, null, 2)}\n`);
      return true;
    } finally {
      release();
    }
  }

  const get = (name: string) => {
    const plugins = read(file).plugins;
    return plugins && Object.hasOwn(plugins, name) ? plugins[name] : undefined;
  };

  return {
    file,
    get,
    async put(name, token) {
      await update((plugins) => {
        plugins[name] = v.parse(StoredToken, token);
        registerSecret(token.access_token);
        registerSecret(token.refresh_token);
        return true;
      });
    },
    remove(name) {
      return update((plugins) => {
        if (!Object.hasOwn(plugins, name)) return false;
        delete plugins[name];
        return true;
      });
    },
    async markInvalidated(name) {
      await update((plugins) => {
        const token = Object.hasOwn(plugins, name) ? plugins[name] : undefined;
        if (!token || token.invalidated) return false;
        plugins[name] = { ...token, invalidated: true };
        return true;
      });
    },
    async exclusive(name, body) {
      const release = await lock(`${file}.${name}.refresh-lock`, `refreshing ${name}'s token`);
      try {
        return await body();
      } finally {
        release();
      }
    },
    state(name, now = new Date()) {
      const token = get(name);
      if (!token) return undefined;
      if (token.invalidated) return "invalidated";
      const expires = token.expires_at ? Date.parse(token.expires_at) : Number.NaN;
      if (!token.refresh_token && now.getTime() - expires > STALE_AFTER_MS) return "invalidated";
      return "valid";
    },
  };
}

function read(file: string): AuthFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw AuthFileInvalid(`${file} is not valid JSON; move it aside and log in to each plugin again`, { file });
  }
  const parsed = v.safeParse(AuthFile, raw);
  if (!parsed.success) {
    const where = v.getDotPath(parsed.issues[0]) ?? "the top level";
    throw AuthFileInvalid(`${file}: ${where} is malformed; move it aside and log in to each plugin again`, { file });
  }
  // The grants, once read, join the process's secrets to redact (config/secret-registry.ts).
  for (const token of Object.values(parsed.output.plugins ?? {})) {
    registerSecret(token.access_token);
    registerSecret(token.refresh_token);
  }
  return parsed.output;
}
