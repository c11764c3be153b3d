import { describe, expect, test } from "bun:test";
import type { TurnInput } from "../../src/agent/turn.ts";
import type { App } from "../../src/app-contract.ts";
import { askLocally } from "../../src/gateway/local-ask.ts";

/** An app that records the turn it is asked for and answers at once. */
function recordingApp() {
  const asked: TurnInput[] = [];
  const app = {
    ask: async (input: TurnInput) => {
      asked.push(input);
      return { response: "pong", provider: "openai", model: "gpt-5.5", turnId: "turn_1" };
    },
  } as unknown as App;
  return { app, asked };
}

describe("a local ask", () => {
  test("without a session id it starts a conversation that has no history to read", async () => {
    const { app, asked } = recordingApp();
    const done = await askLocally(app, { text: "ping", cwd: "/tmp" });
    expect(asked[0]).toMatchObject({ key: { channel: "cli", chat: done.session_id }, newConversation: true });
  });

  test("with a session id it continues that conversation, history read", async () => {
    const { app, asked } = recordingApp();
    await askLocally(app, { text: "ping", cwd: "/tmp", session_id: "ses_earlier" });
    expect(asked[0]!.key).toEqual({ channel: "cli", chat: "ses_earlier" });
    expect(asked[0]!.newConversation).toBeUndefined();
  });
});
