import { timingSafeEqual } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import type { FermixPaths } from "../config/paths.ts";
import { writePrivateFileAtomically } from "../fs/write-private-file.ts";
import { sha256Hex } from "../runtime/hash.ts";

/** How long a launch URL works: long enough to switch to the browser, short enough that a stale one is dead. */
export const LAUNCH_TTL_MS = 15 * 60_000;

type WebPaths = FermixPaths["web"];

/** 32 random bytes, base64url: the form of both the setup token and a launch token. */
export function randomToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** What a session and a launch token are bound to: the setup token's hash, so the secret itself is never kept. */
export function fingerprint(setupToken: string): string {
  return sha256Hex(setupToken);
}

/** Equal strings, compared in constant time (a launch token, a CSRF token). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function readTrimmed(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The current setup token's fingerprint, or undefined when there is none (nobody ran `fermix setup --web`). */
export function currentFingerprint(paths: WebPaths): string | undefined {
  const token = readTrimmed(paths.setupToken);
  return token ? fingerprint(token) : undefined;
}

/** The long-lived setup token's fingerprint, creating the token (0600) on first use. */
export function ensureSetupToken(paths: WebPaths): string {
  const existing = currentFingerprint(paths);
  if (existing) return existing;
  return rotateSetupToken(paths);
}

/**
 * A new setup token: every browser session (bound to the old fingerprint) and any unused launch URL stop working.
 * Returns the new fingerprint.
 */
export function rotateSetupToken(paths: WebPaths): string {
  const token = randomToken();
  writePrivateFileAtomically(paths.setupToken, `${token}\n`);
  rmSync(paths.launchToken, { force: true });
  return fingerprint(token);
}

type LaunchRecord = { token: string; expires_at_ms: number; setup_fingerprint: string };

/** Writes a fresh one-time launch token (replacing any earlier one) and returns it for the URL. */
export function mintLaunchToken(paths: WebPaths, now: number): { token: string; expiresAt: number } {
  const setup_fingerprint = ensureSetupToken(paths);
  const record: LaunchRecord = { token: randomToken(), expires_at_ms: now + LAUNCH_TTL_MS, setup_fingerprint };
  writePrivateFileAtomically(paths.launchToken, `${JSON.stringify(record)}\n`);
  return { token: record.token, expiresAt: record.expires_at_ms };
}

/**
 * Exchanges a presented launch token: valid when the file holds it, it has not expired and it was minted under the
 * current setup token. A valid one is deleted (used once) and its fingerprint returned for the session; a wrong one
 * leaves the file alone, so a guess cannot burn the real link.
 */
export function consumeLaunchToken(paths: WebPaths, presented: string, now: number): string | undefined {
  const text = readTrimmed(paths.launchToken);
  if (!text || !presented) return undefined;
  let record: LaunchRecord;
  try {
    record = JSON.parse(text) as LaunchRecord;
  } catch {
    return undefined;
  }
  if (typeof record.token !== "string" || typeof record.expires_at_ms !== "number") return undefined;
  if (!sameSecret(presented, record.token)) return undefined;
  const current = currentFingerprint(paths);
  if (now >= record.expires_at_ms || !current || record.setup_fingerprint !== current) {
    rmSync(paths.launchToken, { force: true });
    return undefined;
  }
  rmSync(paths.launchToken, { force: true });
  return current;
}

/** The URL `fermix setup --web` opens; the launch token is the only secret in it. */
export function launchUrl(port: number, token: string): string {
  return `http://127.0.0.1:${port}/setup?t=${encodeURIComponent(token)}`;
}
