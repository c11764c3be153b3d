import type { ChannelAdapter, ChatTarget } from "../../channels/channel.ts";
import { balanceFences, takeChunk } from "./chunk-text.ts";
import type { ReplySink } from "./reply-sink-contract.ts";
import type { StreamDeps } from "./stream-clock.ts";

/** The earlier product's DraftStream numbers (channels facts §10). */
export const DRAFT = {
  /** The draft opens once this much text has arrived (a one-word answer is simply sent). */
  openAtChars: 30,
  /** At most one edit per this many milliseconds: platforms rate-limit edits (Telegram ~1/s per chat). */
  editEveryMs: 1000,
  maxEdits: 300,
  /** Consecutive failed edits after which the draft stops changing until it is sealed. */
  freezeAfterFailures: 2,
  sealAttempts: 3,
  sealBackoffMs: 400,
  sealRetryCapMs: 4000,
  sealTimeoutMs: 15_000,
  /**
   * A draft holds this many UTF-16 units (less where the channel's edited message holds less: capabilities
   * .draftUnits); the rest of a longer answer follows as ordinary messages, cut at a paragraph in its second half.
   */
  maxUnits: 4000,
} as const;

/**
 * "draft" streaming: one message, opened once DRAFT.openAtChars have arrived and edited in place at most once a
 * second with the text so far (the newest snapshot wins; edits are best effort), then sealed — a reliable final
 * edit, retried — to the authoritative answer. A seal that fails deletes the draft and sends the answer fresh,
 * so the chat never keeps a half answer. A new model iteration (after a tool call) starts the text over in the
 * same draft. Stopped or failed, the draft is deleted.
 */
export function createDraftStream(adapter: ChannelAdapter, target: ChatTarget, deps: StreamDeps): ReplySink {
  const { clock } = deps;
  const edit = adapter.edit!.bind(adapter);
  const maxUnits = Math.min(DRAFT.maxUnits, adapter.capabilities.draftUnits ?? DRAFT.maxUnits);
  const head = (all: string) =>
    all.length > maxUnits ? takeChunk(all, Math.floor(maxUnits / 2), maxUnits) : undefined;
  let text = "";
  let draftId: string | undefined;
  /** What the draft shows now. */
  let shown = "";
  let edits = 0;
  let failures = 0;
  let frozen = false;
  let lastEditAt = Number.NEGATIVE_INFINITY;
  let timer: unknown;
  let busy: Promise<void> | undefined;
  let closed = false;

  /** The draft's view of the text so far: trimmed, at most maxUnits, a code block left open closed. */
  const view = () => {
    const trimmed = text.trim();
    return balanceFences(head(trimmed)?.chunk ?? trimmed);
  };

  const run = (op: () => Promise<void>) => {
    busy = op().finally(() => {
      busy = undefined;
      pump();
    });
  };

  /** Does the next thing the draft needs, if it may now: open it, or edit it to the newest text. */
  function pump(): void {
    if (closed || busy || frozen) return;
    const next = view();
    if (draftId === undefined) {
      if (next.length < DRAFT.openAtChars) return;
      run(async () => {
        lastEditAt = clock.now();
        try {
          const [sent] = await adapter.send(target, { markdown: next });
          draftId = sent?.id;
          shown = next;
          deps.trace("open", { chars: next.length });
        } catch (err) {
          // No draft: the answer is sent normally when it is done.
          frozen = true;
          deps.log.warn(`${adapter.name}: could not open a draft in ${target.chatId}: ${message(err)}`);
        }
      });
      return;
    }
    if (next === shown || edits >= DRAFT.maxEdits) return;
    const wait = lastEditAt + DRAFT.editEveryMs - clock.now();
    if (wait > 0) {
      timer ??= clock.setTimeout(() => {
        timer = undefined;
        pump();
      }, wait);
      return;
    }
    const id = draftId;
    run(async () => {
      lastEditAt = clock.now();
      edits++;
      try {
        await edit(target, id, { markdown: next });
        shown = next;
        failures = 0;
        deps.trace("edit", { chars: next.length });
      } catch (err) {
        if (++failures >= DRAFT.freezeAfterFailures) {
          frozen = true;
          deps.log.warn(`${adapter.name}: draft in ${target.chatId} frozen after failed edits: ${message(err)}`);
        }
      }
    });
  }

  const stop = async () => {
    closed = true;
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    while (busy) await busy;
  };

  /** The final edit: retried with backoff (or the platform's retry-after), bounded in time. */
  const seal = async (id: string, final: string): Promise<boolean> => {
    if (final === shown) return true;
    const deadline = clock.now() + DRAFT.sealTimeoutMs;
    for (let attempt = 1; attempt <= DRAFT.sealAttempts; attempt++) {
      try {
        await edit(target, id, { markdown: final });
        return true;
      } catch (err) {
        // The draft already says exactly this: sealed.
        if (/not modified/i.test(message(err))) return true;
        const wait = Math.min(retryAfterMs(err) ?? DRAFT.sealBackoffMs * attempt, DRAFT.sealRetryCapMs);
        if (attempt === DRAFT.sealAttempts || clock.now() + wait > deadline) {
          deps.log.warn(`${adapter.name}: could not seal the draft in ${target.chatId}: ${message(err)}`);
          return false;
        }
        await clock.sleep(wait);
      }
    }
    return false;
  };

  /** The answer in place of the draft (sealed), or sent fresh when there is no draft or the seal failed. */
  const deliver = async (final: string) => {
    await stop();
    const id = draftId;
    if (id === undefined) {
      await adapter.send(target, { markdown: final });
      deps.trace("open", { chars: final.length });
      return;
    }
    const trimmed = final.trim();
    const cut = head(trimmed);
    if (!(await seal(id, cut ? cut.chunk : trimmed))) {
      await adapter.delete?.(target, id).catch(() => {});
      await adapter.send(target, { markdown: final });
      return;
    }
    if (cut?.rest.trim()) {
      const rest = cut.open ? `${cut.open.opener}\n${cut.rest}` : cut.rest;
      await adapter.send(target, { markdown: rest, silent: true });
    }
  };

  return {
    onText(delta) {
      if (closed) return;
      text += delta;
      pump();
    },

    onItemEnd() {
      // A new model iteration starts the draft's text over (the earlier product's behaviour).
      text = "";
    },

    // A draft is one message that becomes the answer: a thought line would be edited away, so none is shown.
    onThought() {},

    async finish(final) {
      await deliver(final);
      deps.trace("seal", { chars: final.length });
    },

    async discard() {
      await stop();
      deps.trace("discard");
      if (draftId === undefined) return;
      await adapter
        .delete?.(target, draftId)
        .catch((err: unknown) =>
          deps.log.warn(`${adapter.name}: could not delete the draft in ${target.chatId}: ${message(err)}`),
        );
    },
  };
}

/** A rate limit's hint, as adapters attach it: `data.retry_after_ms`, or seconds (`retryAfter`, `retry_after`). */
function retryAfterMs(err: unknown): number | undefined {
  const data = (err as { data?: Record<string, unknown> } | undefined)?.data;
  if (typeof data?.retry_after_ms === "number") return data.retry_after_ms;
  const seconds = data?.retryAfter ?? data?.retry_after;
  return typeof seconds === "number" ? seconds * 1000 : undefined;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
