/** Which platform messages were already seen, so a re-delivered webhook makes one turn. */
export interface Dedupe {
  /** True the first time a message is seen (within the TTL); false for a repeat. */
  first(channel: string, messageId: string): boolean;
  forget(channel: string, messageId: string): void;
}
