/**
 * ask's own request check (src/cli/ask-check.ts). Through a running daemon it runs only when the daemon refused the
 * request (issue 31): a bad request must still be the same usage error, exit 2, with no model called and the daemon
 * unharmed; in process it runs before the turn.
 */
import { describe, expect, test } from "bun:test";
import { checkRequest } from "../../src/cli/ask-check.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-openai-0123456789abcdef";
const defer = cleanupAfterEach();
const BAD_SESSION = "fermix: ask: --session: a session id of letters, digits, '.', '_', ':' or '-' (at most 128)\n";

async function askEnv() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  fake.setDefault({ kind: "text", text: "pong" });
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { env, fake };
}

describe("checkRequest", () => {
  test("a good request comes back as it went in", () => {
    const draft = { text: "hi", cwd: "/tmp", timeout_ms: 1000, session_id: "work" };
    expect(checkRequest(draft)).toEqual(draft);
  });

  test("what is wrong is a usage error naming the option", () => {
    expect(() => checkRequest({ text: "hi", session_id: "no spaces" })).toThrow(
      "ask: --session: a session id of letters",
    );
    expect(() => checkRequest({ text: "hi", model: "" })).toThrow("ask: model:");
  });
});

describe("fermix ask --session with a bad id (built binary)", () => {
  test("through the daemon: exit 2, the same sentence, no model called, and the daemon answers the next ask", async () => {
    const { env, fake } = await askEnv();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const bad = await runFermix(["ask", "--daemon", "-s", "no spaces", "hi"], { env });
    expect(bad).toEqual({ code: 2, stdout: "", stderr: BAD_SESSION });
    expect(fake.requests).toHaveLength(0);
    expect(await runFermix(["ask", "--daemon", "ping"], { env })).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
  });

  test("in process: the same", async () => {
    const { env, fake } = await askEnv();
    expect(await runFermix(["ask", "-s", "no spaces", "hi"], { env })).toEqual({
      code: 2,
      stdout: "",
      stderr: BAD_SESSION,
    });
    expect(fake.requests).toHaveLength(0);
  });
});
