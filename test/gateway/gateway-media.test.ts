import { describe, expect, test } from "bun:test";
import type { TurnInput, TurnResult } from "../../src/agent/turn.ts";
import type { Caller } from "../../src/capabilities/caller.ts";
import type { InboundAttachment } from "../../src/channels/channel.ts";
import { channelAccess } from "../../src/gateway/channel-access.ts";
import { createGateway } from "../../src/gateway/gateway.ts";
import { createTestChannel, settle } from "../fixture/test-channel.ts";

const OWNER = "100";
const STRANGER = "999";
type AskInput = TurnInput & { caller: Caller };

const photo = (n: number): InboundAttachment => ({
  kind: "image",
  mime: "image/jpeg",
  size: 4,
  download: async () => new Uint8Array([0xff, 0xd8, 0xff, n]),
});

function setup(answer = "ok") {
  const asked: AskInput[] = [];
  const logs: string[] = [];
  const reactions: Array<[string, string]> = [];
  let answered!: () => void;
  const firstTurn = new Promise<void>((resolve) => {
    answered = resolve;
  });
  const gateway = createGateway({
    ask: async (input) => {
      asked.push(input);
      await input.channel?.react?.("👍");
      queueMicrotask(answered);
      return { response: answer, provider: "fake", model: "fake", turnId: "t" } satisfies TurnResult;
    },
    slash: async () => undefined,
    media: {},
    log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) },
    now: Date.now,
  });
  const channel = createTestChannel({ capabilities: { reactions: ["👍"] } });
  channel.adapter.react = async (_target, messageId, emoji) => void reactions.push([messageId, emoji]);
  const access = channelAccess("test", { owner_user_id: OWNER, album_debounce_ms: 0 }, { streaming: "off" });
  if (!access.ok) throw new Error(access.reason);
  void channel.adapter.start(gateway.attach(channel.adapter, access.access));
  return { gateway, channel, asked, logs, reactions, firstTurn };
}

describe("media through the gateway", () => {
  test("an album's parts become one turn with every picture, and the turn can react on the first part", async () => {
    const { channel, asked, reactions } = setup();
    for (const n of [1, 2, 3]) {
      channel.push({
        id: `m${n}`,
        chatId: "a",
        senderId: OWNER,
        text: n === 1 ? "trip" : "",
        mediaGroupId: "g",
        attachments: [photo(n)],
      });
    }
    await channel.waitFor(() => channel.events.some((e) => e.kind === "send"));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.text).toBe("trip");
    expect(asked[0]!.images?.map((i) => i.data[3])).toEqual([1, 2, 3]);
    expect(asked[0]!.channel).toMatchObject({ name: "test", reactions: ["👍"] });
    expect(reactions).toEqual([["m1", "👍"]]);
  });

  test("a stranger's album parts are dropped at once, never buffered", async () => {
    const { gateway, channel, asked, logs } = setup();
    channel.push({ chatId: "a", senderId: STRANGER, text: "", mediaGroupId: "g", attachments: [photo(1)] });
    await settle();
    expect(logs.join()).toContain(`dropped a message from ${STRANGER}`);
    expect(asked).toEqual([]);
    await gateway.idle();
  });

  test("an empty answer (a reaction alone) sends no text bubble", async () => {
    const { gateway, channel, asked, firstTurn } = setup("");
    channel.push({ chatId: "a", senderId: OWNER, text: "thanks" });
    await firstTurn;
    await gateway.idle();
    expect(asked).toHaveLength(1);
    expect(channel.events.filter((e) => e.kind === "send")).toEqual([]);
  });
});
