/** At most this many milestones go to a chat per run; the rest stay in the record (get_coding_run). */
const MAX_POSTS = 20;

/**
 * Posts a run's milestones to its chat at a bounded rate: the first at once, then at most one per interval,
 * a burst collapsed to its latest line. A failed post is dropped (the final result has its own delivery).
 */
export function createMilestonePoster(opts: {
  enabled: boolean;
  send(text: string): Promise<void>;
  intervalMs: number;
  prefix: string;
}) {
  let posted = 0;
  let lastAt = Number.NEGATIVE_INFINITY;
  let waiting: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const flush = () => {
    timer = undefined;
    if (closed || waiting === undefined || posted >= MAX_POSTS) return;
    const text = waiting;
    waiting = undefined;
    posted++;
    lastAt = Date.now();
    void opts.send(`${opts.prefix}${text}`).catch(() => {});
  };
  return {
    post(milestone: string) {
      if (!opts.enabled || closed || posted >= MAX_POSTS) return;
      waiting = milestone;
      if (timer) return;
      const wait = lastAt + opts.intervalMs - Date.now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    /** The run ended: a held milestone is dropped, the result says the rest. */
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
