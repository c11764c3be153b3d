import type { InboundImage, LastImages } from "./last-inbound-image-contract.ts";

/** How long a sent picture stays reachable as generate_image's `inbound:last`. */
export const LAST_IMAGE_TTL_MS = 60 * 60_000;
/** Conversations whose last picture is kept; the least recently used one is forgotten first. */
export const LAST_IMAGE_CHATS = 32;

/**
 * The newest picture each chat sent, in memory only (history keeps placeholders, never the bytes), so "edit the
 * photo I just sent" works in a later turn. Bounded in chats and age: a picture is up to 20 MB.
 */
export function createLastImages(now: () => number): LastImages {
  const kept = new Map<string, { image: InboundImage; at: number }>();
  return {
    remember(conversation: string, image: InboundImage): void {
      kept.delete(conversation);
      kept.set(conversation, { image, at: now() });
      for (const oldest of kept.keys()) {
        if (kept.size <= LAST_IMAGE_CHATS) break;
        kept.delete(oldest);
      }
    },
    get(conversation: string): InboundImage | undefined {
      const entry = kept.get(conversation);
      if (entry && now() - entry.at > LAST_IMAGE_TTL_MS) kept.delete(conversation);
      else return entry?.image;
      return undefined;
    },
  };
}
