/**
 * The process's one registry of secret values: every secret this process resolves or reads — provider and plugin
 * keys, channel tokens, MCP bearer tokens, transcription and search keys, trace-export headers (`resolveSecret`,
 * `envSecret` in secrets.ts), OAuth access and refresh tokens (auth.json's readers and the token endpoints), a
 * secret typed or stored — is registered where it is read, and `redact()` (observability/redact.ts) removes every
 * registered value from whatever leaves the process: the log, the traces, the daemon's errors, the CLI's error
 * formatter, doctor's rows. One per process rather than one per app, because the CLI resolves secrets (doctor,
 * setup, auth) where no app exists, and its error formatter must know them too.
 *
 * A leaf: it imports nothing, so the readers in config/, auth/ and plugins/ and the redactor can all reach it.
 */

/** Shorter values are not registered: redacting them would eat ordinary words (and redact() skips them anyway). */
const MIN_LENGTH = 6;
/**
 * Bounded so a long-running daemon that refreshes OAuth tokens hourly does not grow it forever; a value in use is
 * registered again on each read (that moves it to the young end), so only long-unused ones fall out.
 */
const MAX_SECRETS = 2_000;

const known = new Set<string>();
let sorted: string[] | undefined;

/** An Authorization-style value (`Bearer <token>`): a peer that quotes it back often quotes the token alone. */
const SCHEME = /^(?:bearer|basic|token|bot)\s+(\S+)$/i;

/**
 * Registers a secret value, and the forms it may travel in: trimmed, URL-encoded, and the credential of a
 * `Bearer …`-style header value on its own. Empty or short values are ignored.
 */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== "string") return;
  const trimmed = value.trim();
  const credential = SCHEME.exec(trimmed)?.[1] ?? trimmed;
  for (const form of new Set([value, trimmed, encodeURIComponent(trimmed), credential])) {
    if (form.length < MIN_LENGTH) continue;
    known.delete(form);
    known.add(form);
    sorted = undefined;
  }
  while (known.size > MAX_SECRETS) {
    known.delete(known.values().next().value!);
    sorted = undefined;
  }
}

/** What to redact now, longest first (a secret that contains another is replaced whole). */
export function registeredSecrets(): readonly string[] {
  sorted ??= [...known].sort((a, b) => b.length - a.length);
  return sorted;
}
