/** Prefixed random ids shown to people (`ses_…`, `turn_…`), from Web Crypto so no node:crypto import is paid. */
export function newId(prefix: string, bytes = 8): string {
  return `${prefix}_${randomHex(bytes)}`;
}

/**
 * `bytes` random bytes as lowercase hex. A loop: Array.from and join are the engine's own JavaScript, compiled on
 * their first call in a process, and a one-shot ask's session id was that first call (~1.1 ms in a compiled program,
 * against ~0.1 ms for the loop; issue 31).
 */
export function randomHex(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  let hex = "";
  for (let i = 0; i < raw.length; i++) hex += (raw[i]! < 16 ? "0" : "") + raw[i]!.toString(16);
  return hex;
}
