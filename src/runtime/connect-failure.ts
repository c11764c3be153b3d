/**
 * Whether a request's error says that nothing accepted the connection (no socket at the path, or a socket no process
 * listens on), as against a connection that was accepted and then closed before the answer came.
 *
 * The two mean different things to a client of the daemon: the first is a daemon that is not running, so an ask may
 * run its turn in-process instead; the second is a daemon that took the request and stopped (or crashed) before it
 * answered, and running the turn again here would do twice what the owner asked once (and, with a provider that
 * hangs, wait as long as the daemon did). Bun's fetch and Bun.connect say which with the error's code; Deno's fetch
 * only in the wording of its cause ("client error (Connect): …").
 *
 * It imports nothing: protocol/socket-send.ts reads it on every daemon-up ask's answer.
 */
export function failedToConnect(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "ENOENT" || code === "ECONNREFUSED" || code === "ENOTDIR") return true;
  const cause = (err as { cause?: { message?: unknown } } | null)?.cause?.message;
  return typeof cause === "string" && cause.includes("client error (Connect)");
}
