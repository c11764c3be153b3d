import { UsageError } from "./exit.ts";
import { probeDescriptor } from "./stdio-probe.ts";

export type StdinMode = "auto" | "wait" | "ignore";

/** How long `ask` with words waits for a first byte on a pipe before deciding nothing is coming. */
export const STDIN_GRACE_MS = 1000;
export const MAX_INPUT_BYTES = 4 * 1024 * 1024;

/**
 * Reads piped input for `ask`. A terminal is never read (unless --stdin). A file or /dev/null is read
 * at once. A pipe is read to EOF when it is the only input or --stdin says so; when words were given,
 * an inherited pipe that stays open and silent must not hang a script, so it gets a short grace period
 * for its first byte and is then left alone with a note on stderr.
 */
/**
 * Terminal or /dev/null. Asked through the runtime's file stat rather than node:tty, whose import alone
 * costs milliseconds of start-up in the compiled binary; for output the two are equivalent (nobody
 * reads /dev/null).
 */
export async function isCharacterDevice(fd: 0 | 1): Promise<boolean> {
  return (await probeDescriptor(fd)) === "character";
}

export async function readStdin(
  mode: StdinMode,
  haveWords: boolean,
  note: (line: string) => void,
): Promise<string | undefined> {
  if (mode === "ignore") return undefined;
  const fd0 = await probeDescriptor(0);
  if (fd0 === "closed") return undefined;
  // A character device is a terminal or /dev/null: neither has anything to read unless asked.
  const kind = fd0 === "character" ? "tty" : fd0;
  if (kind === "tty" && mode !== "wait") return undefined;

  // Loaded only when there is something to read: a plain ask from a terminal never loads it (issue 31).
  const reader = (await import("../runtime/stdio.ts")).stdinStream().getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const take = (chunk: Uint8Array) => {
    size += chunk.byteLength;
    if (size > MAX_INPUT_BYTES) throw UsageError(`stdin is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB`);
    chunks.push(chunk);
  };

  if (kind === "pipe" && mode === "auto" && haveWords) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const first = await Promise.race([
      reader.read(),
      new Promise<"silent">((resolve) => {
        timer = setTimeout(() => resolve("silent"), STDIN_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    if (first === "silent") {
      note(
        `fermix: nothing arrived on stdin within ${STDIN_GRACE_MS / 1000} s, going on without it (--stdin waits for it, --no-stdin skips it)`,
      );
      reader.releaseLock();
      return undefined;
    }
    if (first.done) return undefined;
    take(first.value);
  }
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    take(value);
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  return text.length ? text : undefined;
}
