import { describe, expect, test } from "bun:test";
import { GUEST_REFUSAL } from "../../src/usage/budget-sentence.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { GUEST, startPricedChannelApp } from "../fixture/priced-channel-app.ts";

/*
 * A guest on a chat channel spends the owner's money: its turns count against [fermix_core.budget], and once the
 * budget is used up the guest is refused before any request — told that the agent cannot take more work, never what
 * the owner spends — while the owner's refusal names the figures.
 */

const defer = cleanupAfterEach();

async function setup() {
  return startPricedChannelApp(defer, "[fermix_core.budget]\ndaily_usd = 0.01\n");
}

describe("a guest and the owner's budget", () => {
  test("a guest's turn counts against the owner's budget; over it, the guest is refused without amounts", async () => {
    const { llm, say } = await setup();
    // 10,000 in × $1 + 1,000 out × $10 per million: $0.02, twice the day's $0.01 — spent by the guest alone.
    llm.enqueue({
      kind: "text",
      text: "hello guest",
      usage: { input: 10_000, cached: 0, output: 1_000, reasoning: 0 },
    });
    expect(await say("g", "hi", GUEST)).toBe("hello guest");
    const asked = llm.requests.length;

    const refused = await say("g", "one more", GUEST);
    expect(refused).toBe(GUEST_REFUSAL);
    expect(refused).not.toContain("$");
    expect(refused).not.toContain("daily_usd");

    // The guest's spend is the owner's: the owner's next turn is refused too, with the figures and the key.
    const owner = await say("c", "hello");
    expect(owner).toContain("The daily budget is used up: $0.02 spent of $0.01 today");
    expect(owner).toContain("Europe/Berlin");
    expect(owner).toContain("[fermix_core.budget] daily_usd");
    expect(llm.requests.length).toBe(asked);

    // /usage shows the owner the guest's call in today's figures.
    expect(await say("c", "/usage")).toMatch(
      /Today \(\d{4}-\d{2}-\d{2}, Europe\/Berlin\): 10,000 in · 1,000 out · 1 call/,
    );
  });
});
