import { describe, expect, test } from "bun:test";
import { startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const OPENAI_KEY = "sk-test-openai-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef";
const defer = cleanupAfterEach();

async function openai() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  defer(() => fake.close());
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { fake, env };
}

const ANSWER = [
  "Here you go:",
  "```bash",
  "echo first",
  "```",
  "and a second one:",
  "~~~python",
  "print('last')",
  "~~~",
].join("\n");
const USAGE = { input: 1234, cached: 1000, output: 56, reasoning: 12 };
const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name);

describe("fermix ask for scripts (built binary)", () => {
  test("-x prints the first fenced block's code only; --extract-last the last", async () => {
    const { fake, env } = await openai();
    fake.setDefault({ kind: "text", text: ANSWER });
    expect(await runFermix(["ask", "-x", "a script"], { env })).toEqual({
      code: 0,
      stdout: "echo first\n",
      stderr: "",
    });
    const last = await runFermix(["ask", "--extract-last", "a script"], { env });
    expect(last).toEqual({ code: 0, stdout: "print('last')\n", stderr: "" });
  });

  test("-x with no code block prints nothing, says so on stderr, exit 1", async () => {
    const { env } = await openai();
    const r = await runFermix(["ask", "-x", "a script"], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("no fenced code block");
  });

  test("-c sends the previous turn of the last session, and --json names that session", async () => {
    const { fake, env } = await openai();
    fake.enqueue({ kind: "text", text: "the first answer" });
    const first = JSON.parse((await runFermix(["ask", "--json", "the first question"], { env })).stdout);
    await runFermix(["ask", "-s", "other-session", "unrelated, but older than nothing"], { env });
    // The most recently updated session is now other-session; ask in the first one again to make it the latest.
    await runFermix(["ask", "-s", first.session_id, "the second question"], { env });
    const r = await runFermix(["ask", "-c", "--json", "the third question"], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).session_id).toBe(first.session_id);
    const sent = JSON.stringify(fake.requests[3]!.body.input);
    for (const said of ["the first question", "the first answer", "the second question", "the third question"]) {
      expect(sent).toContain(said);
    }
    expect(sent).not.toContain("unrelated");
  });

  test("-c with -s is a usage error, and -c with no session yet says so", async () => {
    const { fake, env } = await openai();
    const both = await runFermix(["ask", "-c", "-s", "x", "hi"], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--continue");
    const none = await runFermix(["ask", "-c", "hi"], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no earlier `fermix ask` session");
    expect(fake.requests).toHaveLength(0);
  });

  test("--no-tools sends no tools field and a prompt naming none", async () => {
    const { fake, env } = await openai();
    expect((await runFermix(["ask", "hi"], { env })).code).toBe(0);
    expect(toolNames(fake.requests[0]!.body)).toContain("file_read");
    expect((await runFermix(["ask", "--no-tools", "hi"], { env })).code).toBe(0);
    const body = fake.requests[1]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.instructions).toContain("No tools are available");
    expect(body.instructions).not.toContain("file_read");
  });

  test("--tools file_read,shell sends exactly those; an unknown name is a usage error listing the valid ones", async () => {
    const { fake, env } = await openai();
    expect((await runFermix(["ask", "--tools", "file_read,shell", "hi"], { env })).code).toBe(0);
    expect(toolNames(fake.requests[0]!.body).sort()).toEqual(["file_read", "shell"]);
    const r = await runFermix(["ask", "--tools", "file_read,nope", "hi"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no built-in tool is named "nope"');
    expect(r.stderr).toContain("file_read, ");
    expect(fake.requests).toHaveLength(1);
    expect((await runFermix(["ask", "--tools", "shell", "--no-tools", "hi"], { env })).code).toBe(2);
  });

  test("--system text joins this turn's instructions only", async () => {
    const { fake, env } = await openai();
    const r = await runFermix(["ask", "--json", "--system", "Answer in French.", "hi"], { env });
    expect(fake.requests[0]!.body.instructions).toEndWith("\n\nAnswer in French.");
    await runFermix(["ask", "-s", JSON.parse(r.stdout).session_id, "again"], { env });
    expect(fake.requests[1]!.body.instructions).not.toContain("Answer in French.");
  });

  test("-u prints the usage on stderr; --json always has it, as the wire reported it", async () => {
    const { fake, env } = await openai();
    fake.setDefault({ kind: "text", text: "pong", usage: USAGE });
    const r = await runFermix(["ask", "-u", "hi"], { env });
    expect(r).toEqual({
      code: 0,
      stdout: "pong\n",
      stderr: "usage: 1,234 input (1,000 cached), 56 output (12 reasoning) tokens\n",
    });
    const json = JSON.parse((await runFermix(["ask", "--json", "hi"], { env })).stdout);
    expect(json.usage).toEqual({
      input_tokens: 1234,
      cached_input_tokens: 1000,
      output_tokens: 56,
      reasoning_tokens: 12,
    });
  });

  test("usage is summed over the turn's model calls", async () => {
    const { fake, env } = await openai();
    fake.enqueue(
      { kind: "tool_calls", calls: [{ name: "memory_recall", arguments: { query: "x" } }] },
      { kind: "text", text: "done", usage: USAGE },
    );
    const { usage } = JSON.parse((await runFermix(["ask", "--json", "hi"], { env })).stdout);
    expect(fake.requests).toHaveLength(2);
    // The tool call's own (estimated) tokens come on top of the reported second call's.
    expect(usage.input_tokens).toBeGreaterThan(USAGE.input);
    expect(usage.output_tokens).toBeGreaterThan(USAGE.output);
    expect(usage.cached_input_tokens).toBe(USAGE.cached);
  });

  test("Anthropic's cache reads and Chat Completions' details are reported the same way", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const claude = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    defer(() => claude.close());
    claude.setDefault({ kind: "text", text: "pong", usage: USAGE });
    const viaClaude = await runFermix(["ask", "--json", "hi"], {
      env: {
        FERMIX_HOME: h.home,
        HOME: h.userHome,
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        ANTHROPIC_BASE_URL: claude.baseUrl,
      },
    });
    // Anthropic reports no reasoning tokens.
    expect(JSON.parse(viaClaude.stdout).usage).toEqual({
      input_tokens: 1234,
      cached_input_tokens: 1000,
      output_tokens: 56,
      reasoning_tokens: 0,
    });
    const llama = await startFakeChatCompletions({ flavor: "ollama" });
    defer(() => llama.close());
    llama.setDefault({ kind: "text", text: "pong", usage: USAGE });
    const viaChat = await runFermix(["ask", "--json", "hi"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OLLAMA_BASE_URL: llama.baseUrl },
    });
    expect(JSON.parse(viaChat.stdout).usage).toEqual({
      input_tokens: 1234,
      cached_input_tokens: 1000,
      output_tokens: 56,
      reasoning_tokens: 12,
    });
  });

  test("through the daemon: --system, --tools, -u and -x", async () => {
    const { fake, env } = await openai();
    fake.setDefault({ kind: "text", text: ANSWER, usage: USAGE });
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const r = await runFermix(["ask", "--daemon", "-x", "-u", "--system", "Be brief.", "--tools", "shell", "hi"], {
      env,
    });
    expect(r).toEqual({
      code: 0,
      stdout: "echo first\n",
      stderr: "usage: 1,234 input (1,000 cached), 56 output (12 reasoning) tokens\n",
    });
    const body = fake.requests[0]!.body;
    expect(body.instructions).toEndWith("\n\nBe brief.");
    expect(toolNames(body)).toEqual(["shell"]);
    const json = JSON.parse((await runFermix(["ask", "--daemon", "--json", "--no-tools", "hi"], { env })).stdout);
    expect(json.usage.input_tokens).toBe(1234);
    expect(fake.requests[1]!.body.tools).toBeUndefined();
  });
});
