/**
 * Arrival order within a conversation: media is prepared in parallel, but each message is admitted (answered, or
 * its turn queued) only after every earlier message of its conversation was, so a text sent right after a picture
 * never overtakes it while the picture downloads.
 */
export function createArrivalOrder() {
  // The last admission of each conversation still in progress.
  const admitting = new Map<string, Promise<void>>();
  return {
    /** Takes the next place in `key`'s line: `turn` settles when the message before is admitted; call `done` after. */
    place(key: string): { turn?: Promise<void>; done(): void } {
      const turn = admitting.get(key);
      let done!: () => void;
      const finished = new Promise<void>((resolve) => {
        done = resolve;
      });
      const mine = turn ? turn.then(() => finished) : finished;
      admitting.set(key, mine);
      void mine.then(() => {
        if (admitting.get(key) === mine) admitting.delete(key);
      });
      return { turn, done };
    },
  };
}
