import { describe, expect, test } from "bun:test";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { GUEST, startPricedChannelApp } from "../fixture/priced-channel-app.ts";

/* /usage on a chat channel, in front of the real app: the owner's figures for this chat and today; a guest is refused. */

const defer = cleanupAfterEach();

async function setup(budget: string) {
  return startPricedChannelApp(defer, budget);
}

describe("/usage on a channel", () => {
  test("the owner gets this chat's and today's tokens and cost, and the budget left; a guest the refusal", async () => {
    const { llm, say } = await setup("[fermix_core.budget]\ndaily_usd = 1\n");
    llm.enqueue(
      { kind: "text", text: "one", usage: { input: 10_000, cached: 0, output: 1_000, reasoning: 0 } },
      { kind: "text", text: "two", usage: { input: 20_000, cached: 0, output: 2_000, reasoning: 0 } },
      { kind: "text", text: "three", usage: { input: 5_000, cached: 0, output: 500, reasoning: 0 } },
    );
    expect(await say("c", "hello")).toBe("one");
    expect(await say("c", "again")).toBe("two");
    expect(await say("g", "hi", GUEST)).toBe("three");
    const asked = llm.requests.length;

    const report = await say("c", "/usage");
    // 30,000 in × $1 + 3,000 out × $10 per million = $0.06 in this chat; the guest's chat adds $0.01 to today.
    expect(report).toContain("This session: 30,000 in · 3,000 out · 2 calls · $0.0600");
    expect(report).toMatch(/Today \(\d{4}-\d{2}-\d{2}, Europe\/Berlin\): 35,000 in · 3,500 out · 3 calls · \$0\.0700/);
    expect(report).toContain("Budget today: $0.9300 left of $1.00 ($0.0700 spent).");
    expect(await say("g", "/usage", GUEST)).toBe("This command requires owner permissions.");
    expect(llm.requests.length).toBe(asked);
  });
});
