/** Prefixed random ids shown to people (`ses_…`, `turn_…`), from Web Crypto so no node:crypto import is paid. */
export function newId(prefix: string, bytes = 8): string {
  return `${prefix}_${randomHex(bytes)}`;
}

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join("");
}
