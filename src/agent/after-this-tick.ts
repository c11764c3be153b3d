/**
 * Work a turn owes, but not before its first model request: it runs once the current run of synchronous work and
 * microtasks is over (by then the request has gone out, or the turn waits on something else), or earlier when the
 * returned function is called, and never twice. What it records is for the record only: a failure is dropped, never
 * thrown at the turn.
 */
export function afterThisTick(work: () => void): () => void {
  let pending = true;
  const run = () => {
    if (!pending) return;
    pending = false;
    try {
      work();
    } catch {}
  };
  setImmediate(run);
  return run;
}
