import type { ChannelAdapter, ChatTarget } from "../../channels/channel.ts";
import { takeChunk } from "./chunk-text.ts";
import type { ReplySink } from "./reply-sink-contract.ts";
import type { StreamDeps } from "./stream-clock.ts";
import { thoughtLine } from "./thought-line.ts";

/** Long text falls back to chunks of this many UTF-16 units, cut at a paragraph where one falls in the range. */
export const BLOCK_MIN_UNITS = 800;
export const BLOCK_MAX_UNITS = 1200;
/** A pause this long in the model's text sends what has arrived (a thought is not held while a tool call streams). */
export const BLOCK_IDLE_MS = 1000;

/**
 * "block" streaming: every completed output item (the model's text up to a tool call, or the final answer) is its
 * own ordinary message, so commentary before a tool lands while the tool runs. Text longer than BLOCK_MAX_UNITS is
 * sent in paragraph chunks as it streams, and a pause of BLOCK_IDLE_MS flushes what is waiting. Works on every
 * channel: nothing is ever edited. Messages already sent stay when the turn is stopped or fails — each was a
 * finished thought; only what had not gone out yet is dropped. Each heading of the model's reasoning summary is a
 * silent one-line `💭` message, in the order it came, so the owner sees what the model is working on.
 */
export function createBlockStream(adapter: ChannelAdapter, target: ChatTarget, deps: StreamDeps): ReplySink {
  const { clock } = deps;
  /** The current item's text not sent yet. */
  let buffer = "";
  /** The current item's whole text as streamed, to tell whether the final answer is what streamed. */
  let item = "";
  /** A code fence the last chunk closed mid-block: reopened in front of the next one. */
  let opener: string | undefined;
  let sent = 0;
  let opened = false;
  let idle: unknown;
  let closed = false;
  let chain: Promise<void> = Promise.resolve();

  /** Sends one message; the reply's first to arrive is its `open`. */
  const send = async (markdown: string, silent: boolean): Promise<void> => {
    await adapter.send(target, { markdown, ...(silent ? { silent } : {}) });
    if (!opened) deps.trace("open");
    opened = true;
  };

  /** Queues a message behind the ones before it; one that fails is logged and the reply goes on. */
  const queueMessage = (markdown: string, silent: boolean, thought?: true) => {
    chain = chain.then(() =>
      send(markdown, silent).then(
        () => deps.trace("block", { chars: markdown.length, ...(thought ? { thought } : {}) }),
        (err: unknown) =>
          deps.log.warn(`${adapter.name}: a streamed block to ${target.chatId} was not sent: ${message(err)}`),
      ),
    );
  };

  /** A chunk of the model's text: the reply's first one notifies, the rest are silent. */
  const queue = (markdown: string) => queueMessage(markdown, sent++ > 0);

  const withOpener = (text: string) => (opener ? `${opener}\n${text}` : text);

  /** Sends chunks while the buffer is longer than a block may be (or all of it, with `all`). */
  const drain = (all: boolean, enqueue: (chunk: string) => void) => {
    for (;;) {
      if (!buffer.trim()) {
        buffer = "";
        return;
      }
      const source = withOpener(buffer);
      if (!all && source.length <= BLOCK_MAX_UNITS) return;
      const cut = takeChunk(source, BLOCK_MIN_UNITS, BLOCK_MAX_UNITS);
      if (cut.chunk.trim()) enqueue(cut.chunk);
      opener = cut.open?.opener;
      buffer = cut.rest;
    }
  };

  const stopIdle = () => {
    if (idle !== undefined) clock.clearTimeout(idle);
    idle = undefined;
  };

  /**
   * What is waiting goes out, an open fence closed. At the end of an item that is all; after a pause
   * (`keepFence`) the fence opens again in front of the text that follows.
   */
  const flush = (enqueue: (chunk: string) => void = queue, keepFence = false) => {
    stopIdle();
    drain(true, enqueue);
    if (!keepFence) opener = undefined;
  };

  return {
    onText(delta) {
      if (closed) return;
      buffer += delta;
      item += delta;
      drain(false, queue);
      stopIdle();
      idle = clock.setTimeout(() => {
        idle = undefined;
        flush(queue, true);
      }, BLOCK_IDLE_MS);
    },

    onItemEnd() {
      if (closed) return;
      flush();
      item = "";
    },

    onThought(summary) {
      const line = thoughtLine(summary);
      if (closed || !line) return;
      // Text that streamed before the thought goes out first: the chat keeps the order the model wrote in.
      flush(queue, true);
      queueMessage(line, true, true);
    },

    async finish(text) {
      if (closed) return;
      closed = true;
      // The final answer is the last item's text as it streamed. A provider that streamed none of it gets
      // the answer sent whole; one that streamed something else keeps what it showed (and it is logged).
      if (!item.trim()) {
        buffer = text;
        opener = undefined;
      } else if (item.trim() !== text.trim()) {
        deps.log.warn(`${adapter.name}: the streamed answer differs from the final one in ${target.chatId}`);
      }
      const last: string[] = [];
      flush((chunk) => last.push(chunk));
      await chain;
      // The answer's first message notifies even after silent blocks: it is what the owner waits for.
      for (const [i, chunk] of last.entries()) await send(chunk, i > 0);
      deps.trace("seal", { chars: text.length });
    },

    async discard() {
      closed = true;
      stopIdle();
      buffer = "";
      await chain;
      deps.trace("discard");
    },
  };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
