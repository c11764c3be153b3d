/**
 * The compiled binary never hides a cut answer: `ask` prints what arrived and a note on stderr, `--json` carries
 * "truncated": true, in-process and through the daemon, for each wire's real truncation shape.
 */
import { describe, expect, test } from "bun:test";
import { type FakeLlm, startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "../fake/llm.ts";
import type { FakeReply } from "../fake/types.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const OPENAI_KEY = "sk-test-openai-trunc-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-test-trunc-0123456789abcdef";
const defer = cleanupAfterEach();
const CUT: Extract<FakeReply, { kind: "text" }> = {
  kind: "text",
  text: "Step one: open the lid. Step two: pour the",
  truncated: true,
};
const NOTE =
  /^fermix: the answer was cut at the model's output limit \((\w+) ([\w.-]+)\); for the rest, ask it to continue: fermix ask -s (ses_[0-9a-f]+) "continue" \(or ask for a shorter answer\)\n$/;

type Wire = "responses" | "anthropic" | "chat";

async function setup(wire: Wire) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  let fake: FakeLlm;
  let env: Record<string, string>;
  if (wire === "responses") {
    fake = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
    env = { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl };
  } else if (wire === "anthropic") {
    fake = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    env = { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: fake.baseUrl };
  } else {
    fake = await startFakeChatCompletions({ flavor: "ollama" });
    env = { OLLAMA_BASE_URL: fake.baseUrl };
  }
  defer(() => fake.close());
  return { h, fake, env: { FERMIX_HOME: h.home, HOME: h.userHome, ...env } };
}

describe("ask with an answer cut at the output limit", () => {
  test.each(["responses", "anthropic", "chat"] as const)(
    "%s, --no-daemon --json: truncated true, and the note on stderr",
    async (wire) => {
      const { fake, env } = await setup(wire);
      fake.enqueue(CUT);
      const r = await runFermix(["ask", "--no-daemon", "--json", "how do I make tea?"], { env });
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toEqual({
        status: "ok",
        response: CUT.text,
        session_id: expect.any(String),
        truncated: true,
        usage: expect.any(Object),
      });
      const note = NOTE.exec(r.stderr);
      expect(note).not.toBeNull();
      expect(note![3]).toBe(out.session_id);
    },
  );

  test("plain output: the answer whole on stdout, the note alone on stderr", async () => {
    const { fake, env } = await setup("anthropic");
    fake.enqueue(CUT);
    const r = await runFermix(["ask", "--no-daemon", "how do I make tea?"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${CUT.text}\n`);
    expect(r.stderr).toMatch(NOTE);
    expect(NOTE.exec(r.stderr)![1]).toBe("anthropic");
  });

  test("a complete answer: no truncated key, nothing on stderr", async () => {
    const { fake, env } = await setup("responses");
    fake.enqueue({ kind: "text", text: "Boil water, add the leaves." });
    const r = await runFermix(["ask", "--no-daemon", "--json", "tea?"], { env });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({
      status: "ok",
      response: "Boil water, add the leaves.",
      session_id: expect.any(String),
      usage: expect.any(Object),
    });
  });

  test.each(["responses", "anthropic"] as const)(
    "%s through the daemon: the same JSON and note, and the answer is kept in the session",
    async (wire) => {
      const { h, fake, env } = await setup(wire);
      const daemon = await startFermixDaemon(env);
      defer(() => daemon.stop());
      const cliEnv = { FERMIX_HOME: h.home, HOME: h.userHome };
      fake.enqueue(CUT);
      const r = await runFermix(["ask", "--daemon", "--json", "how do I make tea?"], { env: cliEnv });
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ status: "ok", response: CUT.text, truncated: true });
      expect(r.stderr).toMatch(NOTE);

      // "continue" in the same session sends the cut answer back as history, so the model can pick it up.
      fake.enqueue({ kind: "text", text: "water over the leaves." });
      const next = await runFermix(["ask", "--daemon", "--json", "-s", out.session_id, "continue"], { env: cliEnv });
      expect(JSON.parse(next.stdout)).toEqual({
        status: "ok",
        response: "water over the leaves.",
        session_id: out.session_id,
        usage: expect.any(Object),
      });
      expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("pour the");
    },
  );
});
