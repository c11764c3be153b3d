import type { ChannelAdapter, ChatTarget } from "../channels/channel.ts";
import { createBlockStream } from "./streaming/block-stream.ts";
import { createDraftStream } from "./streaming/draft-stream.ts";
import type { ReplySink } from "./streaming/reply-sink-contract.ts";
import { realClock, type StreamDeps } from "./streaming/stream-clock.ts";
import { NO_STREAM_TRACE, type StreamTrace } from "./streaming/stream-trace.ts";

export type StreamingMode = "off" | "draft" | "block";

export function createReplySink(
  adapter: ChannelAdapter,
  target: ChatTarget,
  mode: StreamingMode,
  deps: Partial<StreamDeps> = {},
): ReplySink {
  const full: StreamDeps = {
    clock: deps.clock ?? realClock,
    log: deps.log ?? { warn() {} },
    trace: deps.trace ?? NO_STREAM_TRACE,
  };
  if (mode === "draft" && adapter.capabilities.editMessages && adapter.edit) {
    return createDraftStream(adapter, target, full);
  }
  // A channel that cannot edit a message gets blocks instead of a draft (fermix doctor warns about the setting).
  if (mode === "draft" || mode === "block") return createBlockStream(adapter, target, full);
  return offSink(adapter, target, full.trace);
}

/** `off`: the answer is sent once when it is done; nothing streams, and no thought is shown. */
function offSink(adapter: ChannelAdapter, target: ChatTarget, trace: StreamTrace): ReplySink {
  return {
    onText() {},
    onItemEnd() {},
    onThought() {},
    async finish(text) {
      await adapter.send(target, { markdown: text });
      trace("open", { chars: text.length });
      trace("seal", { chars: text.length });
    },
    async discard() {
      trace("discard");
    },
  };
}
