import { describe, expect, test } from "bun:test";
import { type RecordedRequest, startFakeOpenAIResponses } from "../fake/llm.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { type Pane, startPane } from "../fixture/tmux.ts";

/* `fermix chat` in a real terminal (a tmux pane) with the daemon running: every turn goes through its socket. */

const KEY = "sk-test-chat-daemon-0123456789abcdef";
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  h.writeConfig('[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n');
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  const pane = await startPane([await fermixBinary(), "chat", "--daemon", "-s", "desk"], { env });
  defer(() => pane.kill());
  await pane.waitFor((s) => s.includes("fermix chat (daemon)"), "the chat's first line");
  return { fake, env, pane };
}

async function say(pane: Pane, line: string, answer: string): Promise<string> {
  await pane.type(line);
  await pane.keys("Enter");
  return pane.waitFor((s) => s.includes(answer), `the answer "${answer}"`);
}

/** The user messages of a Responses-wire request, oldest first. */
function userTexts(req: RecordedRequest): string[] {
  return (req.body.input as any[])
    .filter((item) => item.role === "user")
    .flatMap((item) => (Array.isArray(item.content) ? item.content : [{ text: item.content }]))
    .map((part) => String(part.text ?? ""));
}

const promptBack = (screen: string) => /(^|\n)>$/.test(screen);

describe("fermix chat through the daemon", () => {
  test("two exchanges in one session (-s), /new, and `fermix ask -s` sees the same session", async () => {
    const { fake, env, pane } = await setup();
    fake.enqueue(
      { kind: "text", text: "first answer" },
      { kind: "text", text: "second answer" },
      { kind: "text", text: "third answer" },
    );
    await say(pane, "hello one", "first answer");
    await say(pane, "hello two", "second answer");
    expect(userTexts(fake.requests[1]!)).toEqual(["hello one", "hello two"]);
    const who = await runFermix(["ask", "-s", "desk", "/whoami"], { env });
    expect(who.stdout).toContain("chat: desk (the -s session)");
    await say(pane, "/new", "Started a new conversation");
    await say(pane, "hello three", "third answer");
    expect(userTexts(fake.requests[2]!)).toEqual(["hello three"]);
  });

  test("Ctrl-C cancels the turn in the daemon; the session goes on", async () => {
    const { fake, env, pane } = await setup();
    fake.enqueue({ kind: "hang" }, { kind: "text", text: "after the cancel" });
    await pane.type("a slow one");
    await pane.keys("Enter");
    const deadline = Date.now() + 20_000;
    while (fake.requests.length < 1 && Date.now() < deadline) await Bun.sleep(10);
    const pressed = Date.now();
    await pane.keys("C-c");
    await pane.waitFor((s) => s.includes("(cancelled)") && promptBack(s), "the prompt after the cancel");
    expect(Date.now() - pressed).toBeLessThan(5000);
    // The hung-up request ended the daemon's turn: none is left running.
    let status = "";
    while (Date.now() < deadline) {
      status = (await runFermix(["status", "--json"], { env })).stdout;
      if (/"active_turns":\s*0/.test(status)) break;
      await Bun.sleep(25);
    }
    expect(status).toMatch(/"active_turns":\s*0/);
    // The same session's lane is free, and the cancelled turn left nothing in it.
    await say(pane, "and next", "after the cancel");
    expect(userTexts(fake.requests[1]!)).toEqual(["and next"]);
  });
});
