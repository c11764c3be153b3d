/** Work queued by lane: in arrival order within one lane, concurrently across lanes. */
export interface Lanes {
  run<T>(lane: string, task: () => Promise<T>): Promise<T>;
  /** Resolves when every lane has run dry (work queued meanwhile included). */
  idle(): Promise<void>;
  readonly active: number;
  /** Lanes with work running or waiting (not tasks). */
  readonly queued: number;
}
