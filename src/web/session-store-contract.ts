export type Session = { id: string; fingerprint: string; csrf: string; expiresAt: number };

/** The setup page's browser sessions, each bound to the setup token's fingerprint at launch. */
export interface SessionStore {
  create(fingerprint: string): Session;
  /** The live session the cookie names, if it is unexpired and bound to the current setup token. */
  find(cookieHeader: string | null, currentFingerprint: string | undefined): Session | undefined;
  delete(id: string): void;
  size(): number;
}
