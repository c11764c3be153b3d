const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
type TerminationSignal = keyof typeof SIGNAL_NUMBERS;

/**
 * Makes SIGTERM, SIGINT and SIGHUP end this process through `cleanup` (bounded by `graceMs`), then exit with
 * the shell's 128+n. Without this a signal ends the process on the spot, and the plugin servers an in-process
 * ask started would be re-parented to init and live on; the `exit` hook of the process transport kills
 * whatever the cleanup did not get to. Returns a function that removes the handlers.
 */
export function exitOnTerminationSignals(cleanup: () => Promise<void>, graceMs: number): () => void {
  let ending = false;
  const handlers = (Object.keys(SIGNAL_NUMBERS) as TerminationSignal[]).map((signal) => {
    const handler = () => {
      if (ending) return;
      ending = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      void Promise.race([cleanup().catch(() => {}), grace]).finally(() => {
        clearTimeout(timer);
        process.exit(128 + SIGNAL_NUMBERS[signal]);
      });
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}
