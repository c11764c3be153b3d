// Cross-cutting observers (a turn finished, a provider failed over, a tool ran) wired once: the parts that care
// (traces, logs, compaction, memory review) subscribe from their own files instead of the composition root
// calling each of them. Listeners run in subscription order; `emit` resolves when all have, so work that must
// finish inside a conversation's lane (compaction) can be awaited there.

export type Listener<Event> = (event: Event) => void | Promise<void>;

export interface Observers<Events extends Record<string, unknown>> {
  on<Kind extends keyof Events>(kind: Kind, listener: Listener<Events[Kind]>): void;
  /** Calls every listener of `kind`; one that throws is reported and the rest still run. */
  emit<Kind extends keyof Events>(kind: Kind, event: Events[Kind]): Promise<void>;
}

export function createObservers<Events extends Record<string, unknown>>(
  onError: (kind: keyof Events, err: Error) => void,
): Observers<Events> {
  const listeners = new Map<keyof Events, Listener<never>[]>();
  return {
    on(kind, listener) {
      listeners.set(kind, [...(listeners.get(kind) ?? []), listener as Listener<never>]);
    },
    async emit(kind, event) {
      for (const listener of listeners.get(kind) ?? []) {
        try {
          await (listener as Listener<typeof event>)(event);
        } catch (err) {
          onError(kind, err as Error);
        }
      }
    },
  };
}
