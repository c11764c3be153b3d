import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const OPENAI_KEY = "sk-test-openai-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef";
const defer = cleanupAfterEach();

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

async function openaiFake() {
  const fake = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  defer(() => fake.close());
  return fake;
}

const userText = (body: any): string => JSON.stringify(body);

describe("fermix ask (built binary, no daemon, no config file)", () => {
  test("OpenAI from the environment answers ping", async () => {
    const h = home();
    const fake = await openaiFake();
    fake.setDefault({ kind: "text", text: "pong from openai" });
    const r = await runFermix(["ask", "ping"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    expect(r).toEqual({ code: 0, stdout: "pong from openai\n", stderr: "" });
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(userText(fake.requests[0]!.body.input)).toContain("ping");
  });

  test("Anthropic from the environment answers ping", async () => {
    const h = home();
    const fake = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    defer(() => fake.close());
    fake.setDefault({ kind: "text", text: "pong from claude" });
    const r = await runFermix(["ask", "ping"], {
      env: {
        FERMIX_HOME: h.home,
        HOME: h.userHome,
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        ANTHROPIC_BASE_URL: fake.baseUrl,
      },
    });
    expect(r).toEqual({ code: 0, stdout: "pong from claude\n", stderr: "" });
    expect(fake.requests[0]!.headers["anthropic-version"]).toBe("2023-06-01");
  });

  test("Ollama answers with no key at all", async () => {
    const h = home();
    const fake = await startFakeChatCompletions({ flavor: "ollama" });
    defer(() => fake.close());
    fake.setDefault({ kind: "text", text: "pong from llama" });
    const r = await runFermix(["ask", "ping"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OLLAMA_BASE_URL: fake.baseUrl },
    });
    expect(r).toEqual({ code: 0, stdout: "pong from llama\n", stderr: "" });
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
  });

  test("piped stdin joins the words, and --json prints one object", async () => {
    const h = home();
    const fake = await openaiFake();
    fake.setDefault({ kind: "text", text: "hello" });
    const r = await runFermix(["ask", "--json", "repeat this"], {
      stdin: "hello\n",
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(out).toEqual({
      status: "ok",
      response: "hello",
      session_id: expect.stringMatching(/^ses_[0-9a-f]{16}$/),
      usage: {
        input_tokens: expect.any(Number),
        cached_input_tokens: 0,
        output_tokens: expect.any(Number),
        reasoning_tokens: 0,
      },
    });
    const sent = userText(fake.requests[0]!.body.input);
    expect(sent).toContain("repeat this");
    expect(sent).toContain("hello");
  });

  test("a stdin pipe that is never written or closed does not hang the call", async () => {
    const h = home();
    const fake = await openaiFake();
    const r = await runFermix(["ask", "ping"], {
      stdin: "open",
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("pong\n");
    expect(r.stderr).toContain("nothing arrived on stdin");
  });

  test("--no-stdin ignores piped input; stdin alone is a whole question", async () => {
    const h = home();
    const fake = await openaiFake();
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl };
    await runFermix(["ask", "--no-stdin", "words only"], { stdin: "SHOULD-NOT-BE-SENT", env });
    expect(userText(fake.requests[0]!.body.input)).not.toContain("SHOULD-NOT-BE-SENT");
    const r = await runFermix(["ask"], { stdin: "a question from a pipe", env });
    expect(r.code).toBe(0);
    expect(userText(fake.requests[1]!.body.input)).toContain("a question from a pipe");
  });

  test("arguments are never re-quoted: quotes, $ and globs reach the model verbatim", async () => {
    const h = home();
    const fake = await openaiFake();
    const words = ['say "hi"', "$HOME", "*.ts", "it's"];
    await runFermix(["ask", ...words], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    const content = fake.requests[0]!.body.input[0].content[0].text;
    expect(content).toBe(words.join(" "));
  });

  test("a session continues with --session", async () => {
    const h = home();
    const fake = await openaiFake();
    fake.enqueue({ kind: "text", text: "remembered: blue" }, { kind: "text", text: "it was blue" });
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl };
    await runFermix(["ask", "-s", "colours", "my colour is blue"], { env });
    await runFermix(["ask", "--session", "colours", "what was my colour?"], { env });
    const second = userText(fake.requests[1]!.body.input);
    expect(second).toContain("my colour is blue");
    expect(second).toContain("remembered: blue");
  });

  test("with nothing configured it says how to configure a provider, exit 1, and writes nothing", async () => {
    const h = home();
    const r = await runFermix(["ask", "ping"], { env: { FERMIX_HOME: h.home, HOME: h.userHome } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("fermix: no model provider is configured");
    expect(r.stderr).toContain("export OPENAI_API_KEY=");
    expect(() => readdirSync(h.home)).toThrow();
  });

  test("--json failures are one object on stdout; --daemon with no daemon exits 3", async () => {
    const h = home();
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    const r = await runFermix(["ask", "--json", "ping"], { env });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "error", code: "no_provider" });
    const down = await runFermix(["ask", "--daemon", "ping"], { env });
    expect(down).toEqual({ code: 3, stdout: "", stderr: "fermix: not running\n" });
    const downJson = await runFermix(["ask", "--daemon", "--json", "ping"], { env });
    expect(downJson.code).toBe(3);
    expect(JSON.parse(downJson.stdout)).toEqual({ status: "error", error: "not_running", code: "not_running" });
  });

  test("usage errors exit 2", async () => {
    const h = home();
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    expect((await runFermix(["ask"], { env })).code).toBe(2);
    const bogus = await runFermix(["ask", "--bogus", "x"], { env });
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain("ask: unknown option --bogus");
    expect((await runFermix(["ask", "-t", "soon", "x"], { env })).stderr).toContain("--timeout takes a whole number");
    expect((await runFermix(["ask", "--provider", "gemini", "x"], { env, stdin: "" })).code).toBe(2);
  });

  test("a model that hangs is given up on at --timeout", async () => {
    const h = home();
    const fake = await openaiFake();
    fake.setDefault({ kind: "hang" });
    const r = await runFermix(["ask", "-t", "500", "ping"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("fermix: no answer within 500 ms (--timeout); nothing was saved\n");
  });

  test("an empty completion is an honest try-again, exit 1", async () => {
    const h = home();
    const fake = await openaiFake();
    fake.setDefault({ kind: "empty" });
    const r = await runFermix(["ask", "ping"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("empty answer, so nothing was saved. Please try again.");
  });

  test("chat is an alias of ask", async () => {
    const h = home();
    const fake = await openaiFake();
    const r = await runFermix(["chat", "ping"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    expect(r.stdout).toBe("pong\n");
  });
});
