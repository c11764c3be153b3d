import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-openai-0123456789abcdef";
const defer = cleanupAfterEach();

describe("one-shot asks and the daemon share memory.db (built binary)", () => {
  test("a turn an in-process ask left in the write-ahead log, before the daemon started or beside it, is the daemon's history", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => fake.close());
    fake.enqueue(
      { kind: "text", text: "remembered: blue" },
      { kind: "text", text: "remembered: round" },
      { kind: "text", text: "blue and round" },
    );
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
    // No daemon yet: this process leaves its commit in the log for the next opener.
    expect(await runFermix(["ask", "-s", "notes", "my colour is blue"], { env })).toMatchObject({ code: 0 });
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    // In process beside the running daemon.
    expect(await runFermix(["ask", "--no-daemon", "-s", "notes", "my shape is round"], { env })).toMatchObject({
      code: 0,
    });
    const last = await runFermix(["ask", "--daemon", "-s", "notes", "what do you know of me?"], { env });
    expect(last).toMatchObject({ code: 0, stdout: "blue and round\n" });
    const history = JSON.stringify(fake.requests[2]!.body.input);
    for (const said of ["my colour is blue", "remembered: blue", "my shape is round", "remembered: round"])
      expect(history).toContain(said);
  });
});
