import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import * as v from "valibot";
import type { FermixPaths } from "../config/paths.ts";
import { writePrivateFileAtomically } from "../fs/write-private-file.ts";
import { sha256Hex } from "../runtime/hash.ts";
import { readCookie, SESSION_COOKIE, SESSION_TTL_MS } from "./gates.ts";
import { randomToken } from "./launch-token.ts";
import type { Session } from "./session-store-contract.ts";

/** Where the sessions outlive a daemon restart: next to the setup token, 0600. */
export function sessionsFile(paths: FermixPaths["web"]): string {
  return join(dirname(paths.setupToken), "setup-sessions.json");
}

const Records = v.array(
  v.object({
    id_sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
    fingerprint: v.string(),
    csrf: v.string(),
    expires_at_ms: v.number(),
  }),
);
type StoredRecord = v.InferOutput<typeof Records>[number];

/**
 * Browser sessions that survive "Apply & restart": kept in memory and mirrored to a 0600 file, which holds only
 * each cookie's SHA-256 (a copy of the file logs nobody in), its setup-token binding, its form token and its expiry.
 * Expired ones are dropped on load and on use; a rotated setup token still ends them all (the binding no longer
 * matches). An unreadable or malformed file is no sessions, never a failed start.
 */
export function createPersistentSessionStore(deps: { now: () => number; file: string }) {
  const sessions = new Map<string, StoredRecord>();
  for (const r of load(deps.file)) if (r.expires_at_ms > deps.now()) sessions.set(r.id_sha256, r);

  function save(): void {
    if (!sessions.size) {
      rmSync(deps.file, { force: true });
      return;
    }
    writePrivateFileAtomically(deps.file, `${JSON.stringify([...sessions.values()])}\n`);
  }

  return {
    create(fingerprint: string): Session {
      const session: Session = {
        id: randomToken(),
        fingerprint,
        csrf: randomToken(),
        expiresAt: deps.now() + SESSION_TTL_MS,
      };
      for (const [key, r] of sessions) if (r.expires_at_ms <= deps.now()) sessions.delete(key);
      sessions.set(sha256Hex(session.id), {
        id_sha256: sha256Hex(session.id),
        fingerprint,
        csrf: session.csrf,
        expires_at_ms: session.expiresAt,
      });
      save();
      return session;
    },
    /** The live session the cookie names, if it is unexpired and bound to the current setup token. */
    find(cookieHeader: string | null, currentFingerprint: string | undefined): Session | undefined {
      const id = readCookie(cookieHeader, SESSION_COOKIE);
      if (!id) return undefined;
      const key = sha256Hex(id);
      const r = sessions.get(key);
      if (!r) return undefined;
      if (r.expires_at_ms <= deps.now() || !currentFingerprint || r.fingerprint !== currentFingerprint) {
        sessions.delete(key);
        save();
        return undefined;
      }
      return { id, fingerprint: r.fingerprint, csrf: r.csrf, expiresAt: r.expires_at_ms };
    },
    delete(id: string): void {
      if (sessions.delete(sha256Hex(id))) save();
    },
    size: () => sessions.size,
  };
}

function load(file: string): StoredRecord[] {
  try {
    const parsed = v.safeParse(Records, JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.output : [];
  } catch {
    return [];
  }
}
