/**
 * A plain `fermix ask words` whose daemon answers with an event stream is read and printed by the entry without the
 * command tree (src/cli/ask-early-answer.ts), through ask's own printing (src/cli/ask-output.ts). What it prints and
 * the exit code are ask's run's, answer for answer: each case is asked plain and with an option (which takes ask's
 * run) of a stand-in for the daemon that answers as the daemon does, and the two must agree word for word.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { startPane } from "../fixture/tmux.ts";

const defer = cleanupAfterEach();

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const DONE = { response: "the answer", session_id: "ses_standin", provider: "openai", model: "gpt-test" };
const SSE = { "content-type": "text/event-stream" };

/** A FERMIX_HOME that exists, with the stand-in's socket in it. */
function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  return { env: { FERMIX_HOME: h.home, HOME: h.userHome }, socket: join(h.home, "daemon.sock") };
}

/** Answers every ask with `answer()`, as Bun.serve answers for the daemon; counts the asks. */
function standIn(socket: string, answer: () => Response) {
  let asks = 0;
  const server = Bun.serve({
    unix: socket,
    async fetch(req) {
      await req.text();
      asks++;
      return answer();
    },
  });
  defer(() => server.stop(true));
  return { asks: () => asks };
}

/** The same question plain (finished by the entry) and with an option (ask's run): both results. */
async function bothWays(env: Record<string, string>) {
  const plain = await runFermix(["ask", "what", "now"], { env });
  const run = await runFermix(["ask", "--timeout", "300000", "what", "now"], { env });
  return { plain, run };
}

describe("the entry prints a daemon's answer as ask's run does", () => {
  const cases: [string, () => Response, { code: number; stdout: string; stderr: RegExp | string }][] = [
    [
      "an answer, its deltas ignored on a pipe",
      () => new Response(`: answering\n\n${event("text", { delta: "the " })}${event("done", DONE)}`, { headers: SSE }),
      { code: 0, stdout: "the answer\n", stderr: "" },
    ],
    [
      "notices go to stderr, the answer to stdout",
      () =>
        new Response(`${event("notice", { text: "fermix: a note for the owner" })}${event("done", DONE)}`, {
          headers: SSE,
        }),
      { code: 0, stdout: "the answer\n", stderr: "fermix: a note for the owner\n" },
    ],
    [
      "an answer cut at the output limit says so beside it",
      () => new Response(event("done", { ...DONE, truncated: true }), { headers: SSE }),
      {
        code: 0,
        stdout: "the answer\n",
        stderr: /^fermix: the answer was cut at the model's output limit \(openai gpt-test\)/,
      },
    ],
    [
      "an error event is the error's sentence and exit code (a budget: 5)",
      () =>
        new Response(event("error", { code: "budget_exceeded", message: "the daily budget of $1.00 is spent" }), {
          headers: SSE,
        }),
      { code: 5, stdout: "", stderr: "fermix: the daily budget of $1.00 is spent\n" },
    ],
    [
      "a stream that ends without done or error is the daemon's closed answer",
      () => new Response(": answering\n\n", { headers: SSE }),
      {
        code: 1,
        stdout: "",
        stderr:
          "fermix: the daemon closed the answer before it finished; `fermix status` says whether it still runs, `fermix logs` why not\n",
      },
    ],
    [
      "an event that fails its schema is refused, not printed",
      () => new Response(event("done", { response: 42 }), { headers: SSE }),
      { code: 1, stdout: "", stderr: /^fermix: / },
    ],
    [
      "an error answer (not a stream) is left to ask's run, which reads it whole",
      () =>
        Response.json({ error: { code: "provider_error", message: "the provider refused the key" } }, { status: 502 }),
      { code: 1, stdout: "", stderr: "fermix: the provider refused the key\n" },
    ],
    [
      "a refused request is ask's run's to explain",
      () =>
        Response.json(
          { error: { code: "invalid_request", message: "ask: text: too long", data: { field: "text" } } },
          { status: 400 },
        ),
      { code: 1, stdout: "", stderr: "fermix: ask: text: too long\n" },
    ],
  ];
  for (const [name, answer, expected] of cases) {
    test(name, async () => {
      const { env, socket } = home();
      const daemon = standIn(socket, answer);
      const { plain, run } = await bothWays(env);
      expect(plain).toEqual(run);
      expect(plain).toMatchObject({ code: expected.code, stdout: expected.stdout });
      if (typeof expected.stderr === "string") expect(plain.stderr).toBe(expected.stderr);
      else expect(plain.stderr).toMatch(expected.stderr);
      // Each asked once: nothing sent twice, nothing run in-process.
      expect(daemon.asks()).toBe(2);
    });
  }
});

describe("in a terminal", () => {
  test("the deltas stream as they come, before the turn is done, and the answer ends its line", async () => {
    const { env, socket } = home();
    const { promise: seen, resolve: see } = Promise.withResolvers<void>();
    const encoder = new TextEncoder();
    const server = Bun.serve({
      unix: socket,
      async fetch(req) {
        await req.text();
        const body = new ReadableStream<Uint8Array>({
          async start(out) {
            out.enqueue(encoder.encode(event("text", { delta: "streamed " })));
            // The rest only once the first delta is on the screen.
            await seen;
            out.enqueue(encoder.encode(`${event("text", { delta: "answer" })}${event("done", DONE)}`));
            out.close();
          },
        });
        return new Response(body, { headers: SSE });
      },
    });
    defer(() => server.stop(true));
    const { fermixBinary } = await import("../fixture/binary.ts");
    const pane = await startPane([await fermixBinary(), "ask", "stream", "it"], { env });
    defer(() => pane.kill());
    await pane.waitFor((s) => s.includes("streamed"), "the first delta");
    expect(await pane.exitStatus()).toBeUndefined();
    see();
    await pane.waitFor((s) => s.includes("streamed answer"), "the whole answer");
    while ((await pane.exitStatus()) === undefined) await Bun.sleep(10);
    expect(await pane.exitStatus()).toBe(0);
    expect((await pane.screen()).split("\n")[0]).toBe("streamed answer");
  });
});
