/**
 * Work a turn owes, but not before its first model request: it runs once the current run of synchronous work and
 * microtasks is over (by then the request has gone out, or the turn waits on something else), or earlier when `run()`
 * is called, and never twice. `settled` carries its failure to whoever awaits it; nobody awaiting, it is dropped.
 */
export type Deferred = { run(): void; settled: Promise<void> };

export function afterThisTick(work: () => void): Deferred {
  let pending = true;
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const settled = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  settled.catch(() => {});
  const run = () => {
    if (!pending) return;
    pending = false;
    try {
      work();
      resolve();
    } catch (err) {
      reject(err);
    }
  };
  setImmediate(run);
  return { run, settled };
}
