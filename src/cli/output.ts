/**
 * CLI output goes through Bun.write rather than process.stdout: touching Node's stdout stream costs
 * ~10 ms of start-up in a compiled binary, which every `fermix ask` and `--version` would pay.
 * One queue keeps stdout and stderr lines in the order they were written.
 */
let queue: Promise<unknown> = Promise.resolve();

export function writeOut(text: string): Promise<void> {
  return enqueue(() => Bun.write(Bun.stdout, text));
}

export function writeErr(text: string): Promise<void> {
  return enqueue(() => Bun.write(Bun.stderr, text));
}

function enqueue(write: () => Promise<number>): Promise<void> {
  const next = queue.then(write, write);
  queue = next.catch(() => {});
  return next.then(() => {});
}
