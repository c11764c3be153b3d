import type { RunProfile } from "../agent/run-profile.ts";
import type { TurnInput, TurnResult } from "../agent/turn.ts";
import { EMPTY_REPLY } from "../agent/turn.ts";
import type { Caller } from "../capabilities/caller.ts";
import type { ChannelReply } from "../capabilities/channel-reply.ts";
import { type ChannelAdapter, type ChatTarget, conversationOf, type InboundMessage } from "../channels/channel.ts";
import { FermixError } from "../error.ts";
import { createAlbumBuffer } from "../media/album-buffer.ts";
import type { AlbumBuffer } from "../media/album-buffer-contract.ts";
import { createLastImages } from "../media/last-inbound-image.ts";
import type { InboundStore } from "../memory/inbound-contract.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import { newSessionId, type Traces } from "../observability/traces.ts";
import { createApprovalNotices } from "./approval-notices.ts";
import { createArrivalOrder } from "./arrival-order.ts";
import { CANNED, stoppedReply } from "./canned-replies.ts";
import { type ChannelAccess, callerFor } from "./channel-access.ts";
import { createConversationQueue } from "./conversation-queue.ts";
import { createDurableInbound } from "./durable-inbound.ts";
import type { Gateway } from "./gateway-contract.ts";
import { type MediaDeps, prepareMessage, type TurnImage } from "./media.ts";
import { createReplySink } from "./reply-sink.ts";
import type { SlashAnswer } from "./slash.ts";
import { streamTrace } from "./streaming/stream-trace.ts";
import { markableSink } from "./truncation-marker.ts";

/** "typing…" is repeated this often while a turn runs, for at most TYPING_MAX_MS. */
export const TYPING_EVERY_MS = 4000;
export const TYPING_MAX_MS = 300_000;

export type SlashRequest = {
  text: string;
  caller: Caller;
  conversation: ConversationKey;
  access: ChannelAccess;
  /** Who sent it, as the platform says (/whoami). */
  senderId: string;
  /** Sends to this chat later, outside any reply (the result of /background work). */
  post(text: string): Promise<void>;
};

export type GatewayDeps = {
  /** One agent turn in its conversation (the app's ask). */
  ask(input: TurnInput & { caller: Caller; images?: TurnImage[] }): Promise<TurnResult>;
  /** The slash commands: a reply, or a turn to run instead (/ultra); undefined when the text is not one. */
  slash(request: SlashRequest): Promise<SlashAnswer | undefined>;
  /** /stop also ends background work (/background); how many tasks it stopped. */
  stopBackground?(): number;
  /**
   * Records "this conversation's turn was stopped" so its orphaned message is not acted on later; the stored
   * messages it answered are settled as stopped in the same write (never run again after a restart).
   */
  markStopped?(conversation: ConversationKey, text: string, inboundIds: readonly number[]): void;
  /** Durable inbound (memory.db): each authorized message stored before the adapter acknowledges it. */
  inbound?: InboundStore;
  media: MediaDeps;
  traces?: Traces;
  log: { info(msg: string): void; warn(msg: string): void };
  now: () => number;
};

/**
 * The one inbound pipeline every chat channel shares, in this order: authorize (a stranger is dropped with a log
 * line and no reply) → media (voice transcribed, images downloaded; a failure is answered, no turn) → empty check →
 * /stop (at ingress, never queued) → slash commands → the conversation's FIFO → the turn → the reply.
 */
export function createGateway(deps: GatewayDeps): Gateway {
  const queue = createConversationQueue();
  const albums: AlbumBuffer[] = [];
  // The newest picture each chat sent, for generate_image's inbound:last in this turn or a later one.
  const lastImages = createLastImages(deps.now);
  // Directory-access requests waiting for the owner's tap: the request re-runs once it is granted.
  const approvals = createApprovalNotices({ now: deps.now, reply: (a, t, text) => reply(a, t, text), log: deps.log });
  // Arrival order within a conversation (arrival-order.ts).
  const arrivalOrder = createArrivalOrder();
  // Stored messages whose turn waits in a conversation's queue: /stop drops those turns, and settles these.
  const waitingTurns = new Set<readonly number[]>();
  const durable = createDurableInbound({ store: deps.inbound, now: deps.now, log: deps.log });
  const settle = durable.settle;
  // Each attached channel's resume: what a restart found pending goes first, then what arrived while it started.
  const resumers = new Map<string, () => number>();

  /** Said once to a message that waited while fermix was not running; it gets no turn. */
  async function lateReply(adapter: ChannelAdapter, message: InboundMessage): Promise<void> {
    const target: ChatTarget = { chatId: message.chatId, thread: message.thread, replyTo: message.id };
    // Settled first: a notice said twice after a crash is worse than one lost.
    settle(message.stored, "late");
    await reply(adapter, target, CANNED.arrivedWhileDown(message.sentAt ?? message.arrivedAt ?? deps.now()));
  }

  function trace(adapter: ChannelAdapter, direction: "inbound" | "outbound", chatId: string, bytes: number) {
    deps.traces?.write("channel_msg", {
      channel: adapter.name,
      direction,
      thread_id: `${adapter.name}:${chatId}`,
      bytes,
    });
  }

  async function reply(adapter: ChannelAdapter, target: ChatTarget, text: string): Promise<void> {
    try {
      await adapter.send(target, { markdown: text });
      trace(adapter, "outbound", target.chatId, text.length);
    } catch (err) {
      deps.log.warn(`${adapter.name}: could not send a reply to ${target.chatId}: ${(err as Error).message}`);
    }
  }

  function runTurn(
    adapter: ChannelAdapter,
    access: ChannelAccess,
    message: InboundMessage,
    caller: Caller,
    text: string,
    images: TurnImage[],
    runProfile?: RunProfile,
  ): true {
    const conversation = conversationOf(message);
    const inboundIds = message.stored ?? [];
    waitingTurns.add(inboundIds);
    const target: ChatTarget = { chatId: message.chatId, thread: message.thread, replyTo: message.id };
    const chatKey = JSON.stringify(conversation);
    if (images.length) lastImages.remember(chatKey, images.at(-1)!);
    queue.enqueue(conversation, async (signal) => {
      waitingTurns.delete(inboundIds);
      // Named here so the stream's trace lines share the turn's session.
      const sessionId = newSessionId("main");
      const at = deps.traces && { traces: deps.traces, sessionId, channel: adapter.name, mode: access.streaming };
      const sink = markableSink(
        createReplySink(adapter, target, access.streaming, { log: deps.log, trace: streamTrace(at) }),
      );
      const typing = keepTyping(adapter, target, signal);
      try {
        const result = await deps.ask({
          key: conversation,
          text,
          caller,
          images,
          signal,
          runProfile,
          inboundIds,
          sessionId,
          channel: { ...channelReply(adapter, target), inboundImage: () => lastImages.get(chatKey) },
          onText: (delta) => sink.onText(delta),
          onItemEnd: () => sink.onItemEnd(),
          onReasoningSummary: (summary) => sink.onThought(summary),
          onNotice: (notice) => void approvals.send(adapter, target, { conversation, notice, text, images }),
        });
        if (signal.aborted) return void (await sink.discard());
        // A reaction or a file alone was the whole answer: no text bubble follows it.
        if (!result.response) return void (await sink.discard());
        await sink.finishAnswer(result.response, result.truncated);
        trace(adapter, "outbound", target.chatId, result.response.length);
      } catch (err) {
        await sink.discard();
        if (signal.aborted) {
          // The owner's /stop is final; a daemon that is stopping leaves the message pending, for its next start.
          if (isOwnerStop(signal.reason)) deps.markStopped?.(conversation, text, inboundIds);
          return;
        }
        const code = err instanceof FermixError ? err.code : undefined;
        if (code === "empty_completion" || (err as Error)?.message === EMPTY_REPLY) {
          await reply(adapter, target, CANNED.emptyModelOutput);
        } else if (err instanceof FermixError) {
          // A provider's own sentence says what to do (a usage limit, a bad key), as does a budget's refusal (a
          // guest's tells no amounts); anything else stays generic.
          deps.log.warn(`${adapter.name}: turn failed in ${message.chatId}: ${err.message}`);
          const own = code?.startsWith("provider_") || code === "budget_exceeded";
          await reply(adapter, target, own ? err.message : CANNED.turnFailed);
        } else {
          deps.log.warn(`${adapter.name}: turn failed in ${message.chatId}: ${(err as Error)?.message}`);
          await reply(adapter, target, CANNED.turnFailed);
        }
      } finally {
        typing.stop();
        // An answer that failed was still answered (with its sentence); a recorded turn settled itself.
        if (!signal.aborted) settle(inboundIds, "answered");
      }
    });
    return true;
  }

  async function ingest(adapter: ChannelAdapter, access: ChannelAccess, message: InboundMessage): Promise<void> {
    const caller = callerFor(access, message.senderId);
    if (!caller) {
      deps.log.info(
        `${adapter.name}: dropped a message from ${message.senderId}${message.senderName ? ` (${message.senderName})` : ""} in chat ${message.chatId}: not the owner or on the allow-list`,
      );
      return;
    }
    trace(adapter, "inbound", message.chatId, message.text.length);
    const target: ChatTarget = { chatId: message.chatId, thread: message.thread, replyTo: message.id };
    const conversation = conversationOf(message);
    // Only the owner's tap spends the buttons; a guest's tap in a shared chat leaves them for the owner (and is
    // refused by /confirm's owner check like a typed command).
    if (message.tap && caller.trust === "operator") {
      void adapter.answerTap?.(message.tap.id, target, message.tap.messageId).catch(() => {});
    }
    // /stop is never held behind the conversation's earlier messages.
    const stop =
      !message.attachments.length && /^\/stop(\s|$)/i.test(stripBotName(message.text.trim(), access.botName));
    const place = stop
      ? undefined
      : arrivalOrder.place(`${conversation.channel}\u0000${conversation.chat}\u0000${conversation.thread ?? ""}`);
    try {
      const queued = await admit(adapter, access, message, caller, target, conversation, place?.turn);
      if (queued !== true) settle(message.stored, "answered");
    } finally {
      place?.done();
    }
  }

  /** Resolves true once the message's turn is queued (it settles with the turn); anything else was answered here. */
  async function admit(
    adapter: ChannelAdapter,
    access: ChannelAccess,
    message: InboundMessage,
    caller: Caller,
    target: ChatTarget,
    conversation: ConversationKey,
    turn?: Promise<void>,
  ): Promise<unknown> {
    const prepared = await prepareMessage(message, deps.media);
    if (turn) await turn;
    if (!prepared.ok) return reply(adapter, target, prepared.reply);
    const text = stripBotName(prepared.text.trim(), access.botName);
    if (!text && !prepared.images.length) return reply(adapter, target, CANNED.looksEmpty);

    if (/^\/stop(\s|$)/i.test(text)) {
      if (caller.trust !== "operator") return reply(adapter, target, CANNED.ownerOnly);
      const stopped = queue.stopAll(new FermixError("stopped", "stopped by the owner with /stop"));
      // The turns /stop dropped from the queues never run: their messages are settled, not replayed later.
      for (const ids of waitingTurns) settle(ids, "stopped");
      waitingTurns.clear();
      const background = deps.stopBackground?.() ?? 0;
      return reply(
        adapter,
        target,
        stopped.turns + stopped.queued + background
          ? stoppedReply(stopped.turns, stopped.queued, background)
          : CANNED.noExecution,
      );
    }
    if (text.startsWith("/")) {
      const post = (later: string) => reply(adapter, { chatId: message.chatId, thread: message.thread }, later);
      const answer = await deps.slash({ text, caller, conversation, access, senderId: message.senderId, post });
      // /ultra: its prompt runs as this conversation's next turn, queued like any message.
      if (typeof answer === "object") {
        return runTurn(adapter, access, message, caller, answer.turn.text, prepared.images, answer.turn.runProfile);
      }
      if (answer !== undefined) {
        await reply(adapter, target, answer);
        // A granted directory request re-runs on its own (chat channels only; the CLI re-runs by hand).
        const token = /^\/confirm\s+(\S+)/i.exec(text)?.[1];
        const waiting = token && answer.startsWith("Granted") ? approvals.take(token) : undefined;
        if (waiting) {
          return runTurn(adapter, access, { ...message, stored: [] }, caller, waiting.text, waiting.images);
        }
        return;
      }
    }
    return runTurn(adapter, access, message, caller, text, prepared.images);
  }

  return {
    attach(adapter: ChannelAdapter, access: ChannelAccess): (message: InboundMessage) => Promise<void> {
      const handle = (message: InboundMessage) =>
        void ingest(adapter, access, message).catch((err: unknown) => {
          deps.log.warn(`${adapter.name}: message ${message.id} failed: ${(err as Error)?.message ?? String(err)}`);
          settle(message.stored, "answered");
        });
      // Album parts (a shared media group id) become one message before media and the queue; a stranger's parts
      // go straight to ingest, which drops them, so they never take room in the buffer.
      const bySender = adapter.capabilities.albumsBySender === true;
      const album = createAlbumBuffer(handle, { debounceMs: access.albumDebounceMs, flushChatFirst: bySender });
      albums.push(album);
      const route = (message: InboundMessage) => {
        if (durable.isLate(message, access)) return void lateReply(adapter, message);
        if (message.mediaGroupId || bySender) album.push(message);
        else handle(message);
      };
      const arrivals = durable.arrivals(adapter, access, route);
      resumers.set(adapter.name, arrivals.resume);
      // Resolves once an authorized sender's message is stored: only then may the adapter tell its platform it
      // arrived (Telegram's offset, Slack's ack, a webhook's 200). A stranger's is dropped before anything is kept.
      return async (message) => {
        if (!callerFor(access, message.senderId)) return handle(message);
        const stored = durable.remember(adapter, message);
        if (stored !== "repeat") arrivals.admit(stored);
      };
    },
    resume: (adapter: ChannelAdapter) => resumers.get(adapter.name)?.() ?? 0,
    active: () => queue.active(),
    stopAll: (reason: unknown) => {
      for (const album of albums) album.stop();
      return queue.stopAll(reason);
    },
    idle: () => queue.idle(),
  };
}

/** /stop's reason (the owner's), as opposed to a daemon that is stopping. */
function isOwnerStop(reason: unknown): boolean {
  return reason instanceof FermixError && reason.code === "stopped";
}

/** `/help@fermix_bot` in a group is `/help`. */
function stripBotName(text: string, botName: string | undefined): string {
  if (!botName || !text.startsWith("/")) return text;
  return text.replace(new RegExp(`^(/\\w+)@${botName.replace(/^@/, "")}\\b`, "i"), "$1");
}

/** What send_attachment and react act on in this turn: the chat it answers and the message it answers. */
function channelReply(adapter: ChannelAdapter, target: ChatTarget): ChannelReply {
  const { sendFile, react } = adapter;
  return {
    name: adapter.name,
    maxUploadBytes: adapter.capabilities.maxUploadBytes,
    reactions: adapter.capabilities.reactions,
    ...(sendFile ? { sendFile: async (file) => void (await sendFile.call(adapter, target, file)) } : {}),
    // No reactions list means the platform takes none.
    ...(react && adapter.capabilities.reactions && target.replyTo
      ? { react: (emoji: string) => react.call(adapter, target, target.replyTo!, emoji) }
      : {}),
  };
}

function keepTyping(adapter: ChannelAdapter, target: ChatTarget, signal: AbortSignal): { stop(): void } {
  if (!adapter.typing) return { stop() {} };
  const started = Date.now();
  const send = () => void adapter.typing!(target).catch(() => {});
  send();
  const timer = setInterval(() => {
    if (signal.aborted || Date.now() - started > TYPING_MAX_MS) return clearInterval(timer);
    send();
  }, TYPING_EVERY_MS);
  return { stop: () => clearInterval(timer) };
}
