import { describe, expect, test } from "bun:test";
import { createCompactor } from "../../src/agent/compaction-observer.ts";
import type { MessageStore } from "../../src/memory/messages-contract.ts";
import { findProvider } from "../../src/providers/descriptors.ts";
import type { Route } from "../../src/providers/routes.ts";

const key = { channel: "cli", chat: "ses_known" };
const routes = (): Route[] => [
  {
    descriptor: findProvider("openai")!,
    model: findProvider("openai")!.defaultModel,
    target: { provider: "openai", baseUrl: "http://x", headers: {}, receiveTimeoutMs: 1000 },
  },
];

describe("the compaction check after a turn", () => {
  test("below the threshold it reads neither the history nor the routes; at the threshold it reads both", async () => {
    let reads = 0;
    let resolved = 0;
    const store = {
      window: () => {
        reads++;
        return { rows: [] };
      },
    } as unknown as MessageStore;
    const compact = createCompactor({
      store,
      routes: () => {
        resolved++;
        return routes();
      },
      router: { wires: {}, fetch, sleep: async () => {} } as never,
      threshold: 0.5,
    });

    const below = await compact(key, {
      systemTokens: 100,
      force: false,
      known: { conversationTokens: 399, contextWindow: 1000 },
    });
    expect(below).toEqual({ compacted: false, reason: "below the threshold" });
    expect({ reads, resolved }).toEqual({ reads: 0, resolved: 0 });

    // At the threshold the stored window decides (here it is empty: nothing to fold).
    const at = await compact(key, {
      systemTokens: 100,
      force: false,
      known: { conversationTokens: 400, contextWindow: 1000 },
    });
    expect(at.compacted).toBe(false);
    expect({ reads, resolved }).toEqual({ reads: 1, resolved: 1 });
  });
});
