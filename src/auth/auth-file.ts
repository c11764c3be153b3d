import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as v from "valibot";
import { registerSecret } from "../config/secret-registry.ts";
import { defineError } from "../error.ts";
import { acquirePidLock } from "../fs/pid-lock.ts";
import { writePrivateFileAtomically } from "../fs/write-private-file.ts";
import { loginHint, type ProfileId } from "./profiles.ts";

/**
 * auth.json version 2: the chat-provider sign-ins under `providers.<profile>`, beside the plugin grants under
 * `plugins` (src/plugins/oauth/token-store.ts), which this module carries over untouched — and the plugin
 * store keeps `version` and `providers` the same way, since both read-modify-write under the one
 * `auth.json.lock`. A legacy flat file (`{"tokens": …}`, the Codex CLI's shape) reads as `openai_codex` and is
 * rewritten as version 2 on the next write. A file that does not parse, or says a version this build does
 * not know, is never rewritten: a write moves it aside to `auth.json.broken.<unix>` and is refused.
 */
export const AuthFileBroken = defineError<{ file: string; keptAt?: string }>("auth_file_broken");
export const AuthBusy = defineError<{ file: string; pid: number }>("auth_busy");

export const BUSY_SENTENCE = "Another Fermix process is refreshing or signing in to this account. Try again shortly.";

export const ProfileStatus = v.picklist(["ready", "reauthorization_required", "client_rejected"]);

export const StoredProfile = v.looseObject({
  /** oauth_pkce (browser sign-in), setup_token, claude_code_import. */
  auth_mode: v.string(),
  tokens: v.looseObject({ access_token: v.pipe(v.string(), v.minLength(1)), refresh_token: v.optional(v.string()) }),
  /** ISO 8601; absent: the token does not expire (a Claude setup token). */
  expires_at: v.optional(v.string()),
  last_refresh: v.optional(v.string()),
  provider: v.optional(v.string()),
  account: v.optional(v.looseObject({ email: v.optional(v.string()), id: v.optional(v.string()) })),
  status: v.optional(ProfileStatus),
  client_id: v.optional(v.string()),
  /** Why the provider refused the last refresh (its `error` code), when status says reauthorization_required. */
  refused: v.optional(v.string()),
});
export type StoredProfile = v.InferOutput<typeof StoredProfile>;

const FileShape = v.looseObject({
  version: v.optional(v.literal(2)),
  providers: v.optional(v.record(v.string(), v.unknown())),
});
type Raw = Record<string, unknown> & { version?: 2; providers?: Record<string, unknown> };

/** Legacy flat files kept these at the top; they move under providers.openai_codex. */
const LEGACY_KEYS = ["tokens", "last_refresh", "OPENAI_API_KEY"] as const;

export type AuthStore = {
  file: string;
  /** The profile as stored; undefined when there is none. A broken file or entry throws AuthFileBroken. */
  read(id: ProfileId): StoredProfile | undefined;
  /**
   * Read-modify-write of one profile under the file lock: `change` gets the current entry and returns the
   * new one, undefined to remove it, or null to leave the file alone.
   */
  update(
    id: ProfileId,
    change: (current: StoredProfile | undefined) => StoredProfile | undefined | null,
  ): Promise<StoredProfile | undefined>;
  /** Runs `body` while no other process refreshes, signs in to or out of this profile. */
  exclusive<T>(id: ProfileId, body: () => Promise<T>): Promise<T>;
};

export type AuthStoreDeps = { fileLockMs?: number; profileLockMs?: number; now?: () => number };

export function createAuthStore(file: string, deps: AuthStoreDeps = {}): AuthStore {
  const now = deps.now ?? Date.now;

  async function lock(path: string, timeoutMs: number): Promise<() => void> {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    return acquirePidLock(path, timeoutMs, (pid) => AuthBusy(BUSY_SENTENCE, { file, pid }));
  }

  return {
    file,
    read(id) {
      return profileOf(readRaw(file, "read"), id, file);
    },
    async update(id, change) {
      // 80 × 100 ms in the earlier product: long enough for any write, short enough to report a stuck one.
      const release = await lock(`${file}.lock`, deps.fileLockMs ?? 8_000);
      try {
        const raw = readRaw(file, "write", now);
        const current = profileOf(raw, id, file, true);
        const next = change(current);
        if (next === null) return current;
        const providers = { ...(raw.providers ?? {}) };
        if (next === undefined) delete providers[id];
        else providers[id] = registerTokens(v.parse(StoredProfile, next));
        writePrivateFileAtomically(file, `${JSON.stringify({ ...raw, version: 2, providers }, null, 2)}\n`);
        return next;
      } finally {
        release();
      }
    },
    async exclusive(id, body) {
      const release = await lock(profileLockPath(file, id), deps.profileLockMs ?? 10_000);
      try {
        return await body();
      } finally {
        release();
      }
    },
  };
}

/** `auth.json.<base64url(profile)>.lock`, held across a refresh, a sign-in or a logout. */
export function profileLockPath(file: string, id: ProfileId): string {
  return `${file}.${Buffer.from(id).toString("base64url")}.lock`;
}

/** Files a refused write moved aside, for doctor. */
export function brokenCopies(file: string): string[] {
  const dir = dirname(file);
  const prefix = `${basename(file)}.broken.`;
  try {
    return readdirSync(dir)
      .filter((name) => name.startsWith(prefix))
      .sort()
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** The whole file, legacy shape folded into version 2; on a write, a broken file is moved aside first. */
function readRaw(file: string, purpose: "read" | "write", now: () => number = Date.now): Raw {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  let problem: string | undefined;
  let raw: unknown;
  try {
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    problem = "is not valid JSON";
  }
  if (!problem) {
    const parsed = v.safeParse(FileShape, raw);
    if (parsed.success) return migrateLegacy(parsed.output as Raw);
    const version = (raw as { version?: unknown } | null)?.version;
    problem =
      raw && typeof raw === "object" && version !== undefined && version !== 2
        ? `is version ${JSON.stringify(version)}, which this fermix does not know`
        : `is malformed at ${v.getDotPath(parsed.issues[0]) ?? "the top level"}`;
  }
  if (purpose === "read") {
    throw AuthFileBroken(
      `${file} ${problem}; fermix will not use or overwrite it. Move it aside and sign in again (fermix auth login), or fix it by hand`,
      { file },
    );
  }
  const keptAt = `${file}.broken.${Math.floor(now() / 1000)}`;
  if (!existsSync(keptAt)) renameSync(file, keptAt);
  throw AuthFileBroken(
    `${file} ${problem}; it was moved aside to ${keptAt} and nothing was written. Run the command again to start a fresh auth.json (plugins and providers then need a new sign-in)`,
    { file, keptAt },
  );
}

function migrateLegacy(raw: Raw): Raw {
  if (raw.providers || raw.tokens === undefined) return raw;
  const legacy = v.safeParse(StoredProfile.entries.tokens, raw.tokens);
  const out: Raw = { ...raw };
  for (const key of LEGACY_KEYS) delete out[key];
  if (!legacy.success) return out;
  const entry: StoredProfile = { auth_mode: "oauth_pkce", tokens: legacy.output, provider: "openai" };
  if (typeof raw.last_refresh === "string") entry.last_refresh = raw.last_refresh;
  const accountId = (raw.tokens as { account_id?: unknown }).account_id;
  if (typeof accountId === "string") entry.account = { id: accountId };
  out.providers = { openai_codex: entry };
  return out;
}

function profileOf(raw: Raw, id: ProfileId, file: string, replacing = false): StoredProfile | undefined {
  const entry = raw.providers && Object.hasOwn(raw.providers, id) ? raw.providers[id] : undefined;
  if (entry === undefined) return undefined;
  const parsed = v.safeParse(StoredProfile, entry);
  if (parsed.success) return registerTokens(parsed.output);
  // A damaged entry is as good as none to a write that replaces it; to a reader it is a sign-in to redo.
  if (replacing) return undefined;
  throw AuthFileBroken(`${file}: providers.${id} is malformed; ${loginHint(id)} to replace it`, { file });
}

/** A profile's tokens, as they are read or written, join the process's secrets to redact (config/secret-registry.ts). */
function registerTokens(entry: StoredProfile): StoredProfile {
  registerSecret(entry.tokens.access_token);
  registerSecret(entry.tokens.refresh_token);
  return entry;
}
