import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RecordedRequest, startFakeOpenAIResponses } from "../fake/llm.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { type Pane, startPane } from "../fixture/tmux.ts";
import { echoToolOutputs } from "../fixture/tool-outputs.ts";

/* `fermix chat` in a real terminal (a tmux pane), in-process: no daemon runs. */

const KEY = "sk-test-chat-0123456789abcdef";
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  h.writeConfig('[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n');
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  const chat = async (args: string[] = [], cwd?: string): Promise<Pane> => {
    const pane = await startPane([await fermixBinary(), "chat", ...args], { env, cwd });
    defer(() => pane.kill());
    await pane.waitFor((s) => s.includes("fermix chat (in-process)"), "the chat's first line");
    return pane;
  };
  return { h, fake, env, chat };
}

/** The user messages of a Responses-wire request, oldest first. */
function userTexts(req: RecordedRequest): string[] {
  return (req.body.input as any[])
    .filter((item) => item.role === "user")
    .flatMap((item) => (Array.isArray(item.content) ? item.content : [{ text: item.content }]))
    .map((part) => String(part.text ?? ""));
}

/** Sends a line and waits for `answer` to show under it. */
async function say(pane: Pane, line: string, answer: string): Promise<string> {
  await pane.type(line);
  await pane.keys("Enter");
  return pane.waitFor((s) => s.includes(answer), `the answer "${answer}"`);
}

/** The prompt is back: the screen's last line is an empty prompt. */
function promptBack(screen: string): boolean {
  return /(^|\n)>$/.test(screen);
}

describe("fermix chat in a terminal", () => {
  test("two exchanges in one session; /new starts the next turn without them; Ctrl-D leaves", async () => {
    const { fake, chat } = await setup();
    fake.enqueue(
      { kind: "text", text: "# Title\n- first answer\n```python\nprint(1)\n```\ndone" },
      { kind: "text", text: "second answer" },
      { kind: "text", text: "third answer" },
    );
    const pane = await chat();
    const first = await say(pane, "hello one", "done");
    // Markdown rendered a line at a time (the pane is a colour terminal; the capture drops the colours).
    expect(first).toContain("• first answer");
    expect(first).toContain("┌── python");
    expect(first).not.toContain("# Title");
    await say(pane, "hello two", "second answer");
    expect(userTexts(fake.requests[1]!).join("\n")).toContain("hello one");
    expect(JSON.stringify(fake.requests[1]!.body)).toContain("first answer");

    await say(pane, "/new", "Started a new conversation");
    expect(fake.requests).toHaveLength(2);
    await say(pane, "hello three", "third answer");
    const third = JSON.stringify(fake.requests[2]!.body);
    expect(third).toContain("hello three");
    expect(third).not.toContain("hello one");
    expect(third).not.toContain("second answer");

    await pane.waitFor(promptBack, "the prompt");
    await pane.keys("C-d");
    await waitExit(pane);
  });

  test("Ctrl-C cancels a slow answer at once and the session goes on; Ctrl-C twice at an empty prompt leaves", async () => {
    const { fake, chat } = await setup();
    fake.enqueue({ kind: "text", text: "kept answer" }, { kind: "hang" }, { kind: "text", text: "after the cancel" });
    const pane = await chat();
    await say(pane, "remember kept", "kept answer");
    await pane.type("a slow one");
    await pane.keys("Enter");
    await waitUntil(() => fake.requests.length === 2, "the slow request");
    const pressed = Date.now();
    await pane.keys("C-c");
    await pane.waitFor((s) => s.includes("(cancelled)") && promptBack(s), "the prompt after the cancel");
    expect(Date.now() - pressed).toBeLessThan(5000);
    await say(pane, "and next", "after the cancel");
    const next = userTexts(fake.requests[2]!);
    expect(next).toContain("remember kept");
    // The cancelled turn stored nothing: the next turn does not see it.
    expect(next).not.toContain("a slow one");

    await pane.waitFor(promptBack, "the prompt");
    await pane.keys("C-c");
    await pane.waitFor((s) => s.includes("Ctrl-C again or Ctrl-D to leave"), "the hint");
    await pane.keys("C-c");
    await waitExit(pane);
  });

  test("an approval answered y grants the directory and runs the request again", async () => {
    const { h, fake, chat } = await setup();
    const project = join(h.userHome, "project");
    const data = join(h.userHome, "data");
    mkdirSync(project, { recursive: true });
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "numbers.csv"), "a,b\n1,2\n");
    fake.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "request_directory_access", arguments: { path: data, reason: "to read the build config" } }],
      },
      { kind: "text", text: "I asked for access." },
      { kind: "tool_calls", calls: [{ name: "file_read", arguments: { path: join(data, "numbers.csv") } }] },
    );
    echoToolOutputs(fake, "read: ");
    const pane = await chat([], project);
    await pane.type("summarise ~/data/numbers.csv");
    await pane.keys("Enter");
    await pane.waitFor(
      (s) => s.includes("fermix wants to use ~/data (to read the build config): allow? [y/N]"),
      "the approval question",
    );
    const asked = await pane.screen();
    expect(asked).toContain("I asked for access.");
    // Asked inline: the /confirm token line is not shown.
    expect(asked).not.toContain("/confirm");
    await pane.type("y");
    await pane.keys("Enter");
    const granted = await pane.waitFor((s) => s.includes("read: "), "the request run again");
    expect(granted).toContain(`Granted access to ${data}`);
    await pane.waitFor((s) => s.includes("1,2"), "the file's contents");
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain(data);
  });

  test("an approval answered N (or Enter) is denied", async () => {
    const { h, fake, chat } = await setup();
    const data = join(h.userHome, "data");
    mkdirSync(data, { recursive: true });
    fake.enqueue(
      { kind: "tool_calls", calls: [{ name: "request_directory_access", arguments: { path: data, reason: "why" } }] },
      { kind: "text", text: "I asked for access." },
    );
    const pane = await chat();
    await pane.type("look in ~/data");
    await pane.keys("Enter");
    await pane.waitFor((s) => s.includes("allow? [y/N]"), "the approval question");
    await pane.keys("Enter");
    await pane.waitFor((s) => s.includes(`Denied: no access to ${data}`), "the denial");
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).not.toContain(data);
    expect(fake.requests).toHaveLength(2);
  });

  test("Up in the next run recalls the last line of the previous run; the history file is 0600", async () => {
    const { h, fake, chat } = await setup();
    fake.setDefault({ kind: "text", text: "noted" });
    const first = await chat();
    await say(first, "an older line", "noted");
    await first.waitFor(promptBack, "the prompt");
    await say(first, "the last line of run one", "noted\n");
    await first.waitFor(promptBack, "the prompt");
    await first.keys("C-d");
    await waitExit(first);
    const file = join(h.home, "chat_history");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe("an older line\nthe last line of run one\n");

    const second = await chat();
    await second.keys("Up");
    await second.waitFor((s) => s.endsWith("> the last line of run one"), "the recalled line");
    await second.keys("Up");
    await second.waitFor((s) => s.endsWith("> an older line"), "the line before");
  });

  test("a pasted block is one message; a trailing \\ continues the line", async () => {
    const { fake, chat } = await setup();
    fake.setDefault({ kind: "text", text: "got it" });
    const pane = await chat();
    await pane.paste("line a\nline b\nline c");
    await pane.keys("Enter");
    await waitUntil(() => fake.requests.length === 1, "one request");
    expect(userTexts(fake.requests[0]!).at(-1)).toBe("line a\nline b\nline c");
    await pane.waitFor((s) => s.includes("got it"), "the answer");
    await pane.waitFor(promptBack, "the prompt");
    await pane.type("first half \\");
    await pane.keys("Enter");
    await pane.type("second half");
    await pane.keys("Enter");
    await waitUntil(() => fake.requests.length === 2, "the second request");
    expect(userTexts(fake.requests[1]!).at(-1)).toBe("first half \nsecond half");
  });

  test("with words, chat is ask; with stdin not a terminal and no words, it reads stdin as ask does", async () => {
    const { fake, env } = await setup();
    const words = await runFermix(["chat", "ping"], { env });
    expect(words).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    const piped = await runFermix(["chat"], { env, stdin: "hello from stdin" });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe("pong\n");
    expect(userTexts(fake.requests[1]!).at(-1)).toBe("hello from stdin");
  });
});

async function waitExit(pane: Pane): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const status = await pane.exitStatus();
    if (status !== undefined) {
      if (status !== 0) throw new Error(`the chat exited with ${status}; the screen:\n${await pane.screen()}`);
      return;
    }
    await Bun.sleep(25);
  }
  throw new Error(`the chat did not exit; the screen:\n${await pane.screen()}`);
}

async function waitUntil(test: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}
