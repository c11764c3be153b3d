import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs, toolOutputs } from "../fixture/tool-outputs.ts";

const KEY = "sk-test-remember-0123456789";
const defer = cleanupAfterEach();

describe("fermix remembers across sessions (built binary, fake provider calling the memory tools)", () => {
  test("a preference stored in one session is found by full-text search in a new one and used in the answer", async () => {
    const h = tempHome();
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.close());
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };

    fake.enqueue(
      {
        kind: "tool_calls",
        calls: [
          {
            name: "memory_store",
            arguments: { category: "preference", key: "coffee order", value: "an oat milk flat white, no sugar" },
          },
        ],
      },
      { kind: "text", text: "Noted: oat milk flat white." },
    );
    const told = await runFermix(["ask", "-s", "monday", "remember that I drink oat milk flat whites, no sugar"], {
      env,
    });
    expect(told.code).toBe(0);

    fake.enqueue({
      kind: "tool_calls",
      calls: [{ name: "memory_recall", arguments: { query: "coffee flat white", scope: "owner" } }],
    });
    echoToolOutputs(fake, "From memory: ");
    const asked = await runFermix(["ask", "-s", "friday", "order my usual coffee"], { env });
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain("oat milk flat white, no sugar");
    // The recall ran in the new session, and found the fact (not just the earlier chat text).
    const recall = toolOutputs(fake.requests.at(-1)!)[0]!;
    expect(recall).toContain("[fact, owner, preference] coffee_order: an oat milk flat white, no sugar");
    expect(fake.requests.at(-1)!.body.input[0].content[0].text).toBe("order my usual coffee");
  });
});
