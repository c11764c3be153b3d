import { writeStderr, writeStdout } from "../runtime/stdio.ts";

/**
 * CLI output goes through the runtime's stdio writes rather than process.stdout: touching Node's stdout
 * stream costs ~10 ms of start-up in a compiled binary, which every `fermix ask` and `--version` would
 * pay. One queue keeps stdout and stderr lines in the order they were written.
 */
let queue: Promise<unknown> = Promise.resolve();

export function writeOut(text: string): Promise<void> {
  return enqueue(() => writeStdout(text).catch(readerGone));
}

export function writeErr(text: string): Promise<void> {
  return enqueue(() => writeStderr(text));
}

function enqueue(write: () => Promise<number>): Promise<void> {
  const next = queue.then(write, write);
  queue = next.catch(() => {});
  return next.then(() => {});
}

/**
 * The reader of stdout went away (`fermix logs -f | head`): it has all it wanted, so this process is done, as a
 * shell pipeline expects — quietly, not with "EPIPE: broken pipe" and exit 1.
 */
function readerGone(err: unknown): never {
  if ((err as NodeJS.ErrnoException)?.code === "EPIPE") process.exit(0);
  throw err;
}
