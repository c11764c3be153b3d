/**
 * A channel reply cut at the model's output limit ends with a short marker, in every streaming mode, and shows
 * it exactly once; a complete answer never carries it.
 */
import { describe, expect, test } from "bun:test";
import type { TurnInput, TurnResult } from "../../src/agent/turn.ts";
import type { Caller } from "../../src/capabilities/caller.ts";
import { channelAccess } from "../../src/gateway/channel-access.ts";
import { createGateway } from "../../src/gateway/gateway.ts";
import type { StreamingMode } from "../../src/gateway/reply-sink.ts";
import { TRUNCATION_MARKER } from "../../src/gateway/truncation-marker.ts";
import { createTestChannel } from "../fixture/test-channel.ts";

const OWNER = "100";
const ANSWER = "Here is the first part of a long list: one, two, three, four, five, six and";

/** A gateway whose turn streams `ANSWER` in three deltas (or none) and reports it cut (or not). */
function setup(mode: StreamingMode, opts: { truncated: boolean; stream?: boolean }) {
  const ask = async (input: TurnInput & { caller: Caller }): Promise<TurnResult> => {
    if (opts.stream !== false)
      for (const piece of [ANSWER.slice(0, 30), ANSWER.slice(30, 50), ANSWER.slice(50)]) {
        input.onText?.(piece);
      }
    return {
      response: ANSWER,
      provider: "fake",
      model: "fake",
      turnId: "t",
      ...(opts.truncated ? { truncated: true as const } : {}),
    };
  };
  const gateway = createGateway({
    ask,
    slash: async () => undefined,
    media: {},
    log: { info() {}, warn() {} },
    now: Date.now,
  });
  const channel = createTestChannel();
  const access = channelAccess("test", { owner_user_id: OWNER }, { streaming: mode });
  if (!access.ok) throw new Error(access.reason);
  void channel.adapter.start(gateway.attach(channel.adapter, access.access));
  const shown = () =>
    channel
      .shown("c")
      .map((m) => m.markdown)
      .join("\n");
  return { channel, shown };
}

describe("a truncated channel reply", () => {
  test.each(["off", "block", "draft"] as const)("streaming %s: the reply ends with the marker, once", async (mode) => {
    const { channel, shown } = setup(mode, { truncated: true });
    channel.push({ chatId: "c", senderId: OWNER, text: "list everything" });
    await channel.waitFor(() => shown().endsWith(TRUNCATION_MARKER));
    expect(shown()).toBe(`${ANSWER}${TRUNCATION_MARKER}`);
    expect(TRUNCATION_MARKER).toBe(" …[cut at the output limit]");
  });

  test("block streaming with nothing streamed still ends with the marker", async () => {
    const { channel, shown } = setup("block", { truncated: true, stream: false });
    channel.push({ chatId: "c", senderId: OWNER, text: "list everything" });
    await channel.waitFor(() => shown().length > 0);
    expect(shown()).toBe(`${ANSWER}${TRUNCATION_MARKER}`);
  });

  test.each(["off", "block", "draft"] as const)("streaming %s: a complete answer has no marker", async (mode) => {
    const { channel, shown } = setup(mode, { truncated: false });
    channel.push({ chatId: "c", senderId: OWNER, text: "list everything" });
    await channel.waitFor(() => shown() === ANSWER);
    expect(shown()).not.toContain("cut at the output limit");
  });
});
