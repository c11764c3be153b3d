import type { ProfileId } from "./profiles.ts";

/**
 * `fermix auth logout` asks a running daemon to drop what it holds of a profile (POST /v1/auth/forget).
 * Token sources re-read auth.json on every call and keep nothing; anything that does cache a token (a wire's
 * open connection state) registers here and is told.
 */
type Listener = (profile: ProfileId) => void;
const listeners = new Set<Listener>();

export function onForgetProfile(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function forgetHeldTokens(profile: ProfileId): void {
  for (const listener of listeners) {
    try {
      listener(profile);
    } catch {
      // One holder failing to let go must not keep the others holding.
    }
  }
}
