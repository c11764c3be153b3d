import type { InboundMessage } from "../channels/channel.ts";
import type { AlbumBuffer } from "./album-buffer-contract.ts";

/** Telegram albums hold at most 10 items: the tenth part flushes at once. */
export const ALBUM_MAX_PARTS = 10;
/** Past this many albums in flight, new ones pass uncoalesced rather than grow the buffer without bound. */
export const ALBUM_MAX_KEYS = 200;

export type AlbumTimers = {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
};

export type AlbumBufferOptions = {
  /** Quiet time after the newest part before the album is handed on; restarts on each part. */
  debounceMs: number;
  maxParts?: number;
  maxKeys?: number;
  timers?: AlbumTimers;
  /** A message without a group id first hands on the albums pending in its chat (albums keyed by sender). */
  flushChatFirst?: boolean;
};

const realTimers: AlbumTimers = {
  set(run, ms) {
    const timer = setTimeout(run, ms);
    // A pending album must not keep a stopping daemon alive: its parts are lost, as documented.
    (timer as { unref?: () => void }).unref?.();
    return timer;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

type Pending = { parts: InboundMessage[]; timer: unknown };

/**
 * Platforms deliver an album as separate messages sharing a group id (Telegram's media_group_id; WhatsApp's
 * per-image webhooks keyed by sender). They are merged into one message so the agent sees every picture in one
 * turn: captions joined with "\n" in arrival order, attachments concatenated. `push` never waits — the flush
 * runs on its own timer, so an adapter's poll loop is never held up by the debounce.
 */
export function createAlbumBuffer(
  deliver: (message: InboundMessage) => void,
  options: AlbumBufferOptions,
): AlbumBuffer {
  const timers = options.timers ?? realTimers;
  const maxParts = options.maxParts ?? ALBUM_MAX_PARTS;
  const maxKeys = options.maxKeys ?? ALBUM_MAX_KEYS;
  const pending = new Map<string, Pending>();

  const flush = (key: string) => {
    const album = pending.get(key);
    if (!album) return;
    pending.delete(key);
    timers.clear(album.timer);
    deliver(mergeAlbum(album.parts));
  };

  return {
    push(message: InboundMessage): void {
      if (!message.mediaGroupId) {
        if (options.flushChatFirst) {
          const chat = `${message.channel}\u0000${message.chatId}\u0000`;
          for (const key of [...pending.keys()]) if (key.startsWith(chat)) flush(key);
        }
        deliver(message);
        return;
      }
      const key = `${message.channel}\u0000${message.chatId}\u0000${message.mediaGroupId}`;
      const album = pending.get(key);
      if (!album && pending.size >= maxKeys) {
        deliver(message);
        return;
      }
      const parts = album ? [...album.parts, message] : [message];
      if (album) timers.clear(album.timer);
      pending.set(key, { parts, timer: timers.set(() => flush(key), options.debounceMs) });
      if (parts.length >= maxParts) flush(key);
    },
    pending: () => pending.size,
    stop(): void {
      for (const album of pending.values()) timers.clear(album.timer);
      pending.clear();
    },
  };
}

/** One message from an album's parts: the first part's identity, every caption and attachment. */
export function mergeAlbum(parts: readonly InboundMessage[]): InboundMessage {
  const [first, ...rest] = parts;
  if (!first) throw new Error("an album has at least one part");
  if (!rest.length) return first;
  return {
    ...first,
    text: parts
      .map((p) => p.text.trim())
      .filter(Boolean)
      .join("\n"),
    attachments: parts.flatMap((p) => p.attachments),
    stored: parts.flatMap((p) => p.stored ?? []),
  };
}
