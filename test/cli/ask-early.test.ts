/**
 * A plain `fermix ask words` with a daemon up goes out before the command tree loads (src/cli/ask-early.ts), and the
 * rest of ask adopts it: the daemon gets exactly the request the full path builds, once; anything the words alone do
 * not decide (options, piped stdin) takes the full path; a socket nobody listens on still means the in-process turn.
 * A recording stand-in for the daemon listens on the socket and answers as the daemon does (SSE, then `done`).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  daemonSocket,
  PROTOCOL_HEADER as EARLY_HEADER,
  PROTOCOL_VERSION as EARLY_VERSION,
  DEFAULT_TIMEOUT_MS as PLAIN_TIMEOUT_MS,
  plainRequest,
  sendPlainAskEarly,
} from "../../src/cli/ask-early.ts";
import { DEFAULT_TIMEOUT_MS } from "../../src/cli/ask-run.ts";
import { fermixPaths, resolveHome } from "../../src/config/paths.ts";
import { PROTOCOL_HEADER, PROTOCOL_VERSION } from "../../src/protocol/protocol-version.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { leaveStaleSocket } from "../fixture/stale-socket.ts";

const KEY = "sk-test-openai-early-0123456789abcdef";
const defer = cleanupAfterEach();

type Received = { path: string; protocol: string | null; body: unknown };

/**
 * Answers every `/v1/ask` with `answer` as the daemon would, once `hold` resolves; records what arrived. `arrived` and
 * `abandoned` resolve when the first request arrives and when its client hangs up on it.
 */
function standInDaemon(socket: string, answer: string, hold: Promise<void> = Promise.resolve()) {
  const received: Received[] = [];
  const { promise: arrived, resolve: arrive } = Promise.withResolvers<void>();
  const { promise: abandoned, resolve: abandon } = Promise.withResolvers<void>();
  const server = Bun.serve({
    unix: socket,
    async fetch(req) {
      req.signal.addEventListener("abort", () => abandon(), { once: true });
      // A request its client abandoned before its last byte (stdin had something to add) has no body to read.
      const body = await req.json().catch(() => undefined);
      if (body === undefined) return new Response("cut short", { status: 400 });
      received.push({ path: new URL(req.url).pathname, protocol: req.headers.get(PROTOCOL_HEADER), body });
      arrive();
      await hold;
      const done = { response: answer, session_id: "ses_standin", provider: "openai", model: "gpt-test" };
      return new Response(`: answering\n\nevent: done\ndata: ${JSON.stringify(done)}\n\n`, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  });
  defer(() => server.stop(true));
  return { received, arrived, abandoned };
}

/** A FERMIX_HOME that exists (the stand-in listens in it), its environment and the daemon's socket path there. */
function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  return { h, env: { FERMIX_HOME: h.home, HOME: h.userHome }, socket: join(h.home, "daemon.sock") };
}

/** Stdin and stdout as a terminal's stats would have them (src/main.ts asks Bun for the real ones). */
const terminal = () => {
  const stat = Promise.resolve({ isCharacterDevice: () => true, isFile: () => false });
  return [stat, stat] as const;
};

/** What ask builds from plain words, as cli/ask-early.ts sends it. */
const plainAsk = (text: string) => ({ text, cwd: process.cwd(), timeout_ms: 300_000 });

describe("a plain ask sent before the command tree loads (built binary)", () => {
  test("goes once, and is the very request the full path builds from the same words", async () => {
    const { env, socket } = home();
    const daemon = standInDaemon(socket, "pong");
    const plain = await runFermix(["ask", "hello", "world"], { env });
    expect(plain).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    // An option (here the default timeout, spelled out) is not plain: the full path builds and sends this one.
    const full = await runFermix(["ask", "--timeout", "300000", "hello", "world"], { env });
    expect(full).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    // --daemon changes where the request may go, not the request: it goes early as well.
    const required = await runFermix(["ask", "hello", "--daemon", "world"], { env });
    expect(required).toEqual({ code: 0, stdout: "pong\n", stderr: "" });
    expect(daemon.received).toHaveLength(3);
    expect(daemon.received[0]).toEqual(daemon.received[1]!);
    expect(daemon.received[2]).toEqual(daemon.received[1]!);
    expect(daemon.received[0]).toEqual({
      path: "/v1/ask",
      protocol: String(PROTOCOL_VERSION),
      body: { text: "hello world", cwd: expect.any(String), timeout_ms: 300_000 },
    });
  });

  test("piped stdin joins the question: such an ask is not sent before its stdin is read", async () => {
    const { env, socket } = home();
    const daemon = standInDaemon(socket, "summary");
    const r = await runFermix(["ask", "summarise"], { env, stdin: "the build is red" });
    expect(r).toEqual({ code: 0, stdout: "summary\n", stderr: "" });
    expect(daemon.received.map((x) => (x.body as { text: string }).text)).toEqual(["summarise\n\nthe build is red"]);
  });

  test("with the daemon up, a piped question is one turn: the request begun before stdin was known starts none", async () => {
    const { env } = home();
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => fake.close());
    fake.setDefault({ kind: "text", text: "it is red" });
    const withProvider = { ...env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
    const daemon = await startFermixDaemon(withProvider);
    defer(() => daemon.stop());
    const r = await runFermix(["ask", "summarise"], { env: withProvider, stdin: "the build is red" });
    expect(r).toEqual({ code: 0, stdout: "it is red\n", stderr: "" });
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0]!.body)).toContain("summarise\\n\\nthe build is red");
    // The daemon answered the abandoned request as the body it lacks, and said nothing of it in its log.
    expect(daemon.stderr()).not.toMatch(/error|invalid/i);
  });

  test("a socket nobody listens on (a daemon killed with SIGKILL) is the in-process turn, or with --daemon exit 3", async () => {
    const { env, socket } = home();
    // A real listener, really killed: its socket file stays behind with nobody accepting on it.
    await leaveStaleSocket(socket);
    expect(existsSync(socket)).toBe(true);
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => fake.close());
    fake.setDefault({ kind: "text", text: "answered here" });
    const r = await runFermix(["ask", "ping"], {
      env: { ...env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    expect(r).toMatchObject({ code: 0, stdout: "answered here\n" });
    expect(fake.requests).toHaveLength(1);
    // Required, the daemon's absence is exit 3, as ever.
    const required = await runFermix(["ask", "--daemon", "ping"], { env });
    expect(required).toEqual({ code: 3, stdout: "", stderr: "fermix: not running\n" });
  });

  test("a daemon that takes the request and closes before answering (it stopped, or crashed): exit 1, and the turn is not run again here", async () => {
    const { env, socket } = home();
    // A daemon's end as the client sees it when a SIGTERM lands mid-turn: the whole request read, then the hang-up.
    let taken = 0;
    const server = Bun.listen({
      unix: socket,
      socket: {
        data(s, chunk) {
          if (!chunk.toString().includes('"text"')) return;
          taken++;
          s.end();
        },
      },
    });
    defer(() => server.stop(true));
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => fake.close());
    fake.setDefault({ kind: "text", text: "answered twice" });
    const withProvider = { ...env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
    const said =
      "fermix: the daemon closed the connection before it answered; `fermix status` says whether it still runs, `fermix logs` why not\n";
    // Plain words go early, on Bun's socket API; an option takes the full path, on fetch; --daemon changes nothing.
    for (const args of [
      ["ask", "ping"],
      ["ask", "--timeout", "300000", "ping"],
      ["ask", "--daemon", "ping"],
    ]) {
      expect(await runFermix(args, { env: withProvider })).toEqual({ code: 1, stdout: "", stderr: said });
    }
    expect(taken).toBe(3);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("adopting the early request (src/cli/ask-early.ts)", () => {
  test("a request that differs from the one sent is not adopted, and the one sent is cancelled", async () => {
    const { env, socket } = home();
    let release = () => {};
    const daemon = standInDaemon(socket, "late", new Promise<void>((resolve) => (release = resolve)));
    defer(() => release());
    const early = await sendPlainAskEarly(["first", "words"], terminal(), env);
    await daemon.arrived;
    expect(early.take(socket, plainAsk("other words"))).toBeUndefined();
    await daemon.abandoned;
    // Taken once: nothing is left to adopt, not even the request that went.
    expect(early.take(socket, plainAsk("first words"))).toBeUndefined();
    expect(daemon.received).toEqual([
      { path: "/v1/ask", protocol: String(PROTOCOL_VERSION), body: plainAsk("first words") },
    ]);
  });

  test("the same request is adopted once: its answer is the daemon's", async () => {
    const { env, socket } = home();
    const daemon = standInDaemon(socket, "adopted");
    const early = await sendPlainAskEarly(["same", "words"], terminal(), env);
    const responding = early.take(socket, plainAsk("same words"));
    expect(responding).toBeDefined();
    expect(await (await responding!).text()).toContain('"response":"adopted"');
    expect(early.take(socket, plainAsk("same words"))).toBeUndefined();
    expect(daemon.received).toHaveLength(1);
  });

  test("options, `--`, help flags, empty words, a piped stdin and a missing socket send nothing", async () => {
    const { h, env, socket } = home();
    const daemon = standInDaemon(socket, "never");
    for (const argv of [["-c", "more"], ["--", "-x"], ["hi", "-h"], [" "], [], ["--daemon"], ["--no-daemon", "hi"]]) {
      const early = await sendPlainAskEarly(argv, terminal(), env);
      expect(early.take(socket, plainAsk(argv.join(" ")))).toBeUndefined();
    }
    // A pipe on stdin (its text joins the question) or no stats from Bun at all.
    const pipe = Promise.resolve({ isCharacterDevice: () => false, isFile: () => false });
    for (const stdio of [[pipe, pipe] as const, undefined]) {
      const early = await sendPlainAskEarly(["hi"], stdio, env);
      expect(early.take(socket, plainAsk("hi"))).toBeUndefined();
    }
    const elsewhere = join(h.home, "no-daemon-here");
    const early = await sendPlainAskEarly(["hi"], terminal(), { ...env, FERMIX_HOME: elsewhere });
    expect(early.take(join(elsewhere, "daemon.sock"), plainAsk("hi"))).toBeUndefined();
    expect(daemon.received).toHaveLength(0);
  });

  // ask-early.ts repeats what other modules own, to stay out of the binary's chunks until the send (it says why).
  test("the facts ask-early.ts repeats are their owners': the socket's path, the protocol header, the request", () => {
    expect([EARLY_HEADER, EARLY_VERSION]).toEqual([PROTOCOL_HEADER, String(PROTOCOL_VERSION)]);
    expect(PLAIN_TIMEOUT_MS).toBe(DEFAULT_TIMEOUT_MS);
    expect(plainRequest(["a", "b"])).toEqual({ text: "a b", cwd: process.cwd(), timeout_ms: DEFAULT_TIMEOUT_MS });
    const homes: Record<string, string | undefined>[] = [
      { FERMIX_HOME: "/srv/fx" },
      { FERMIX_HOME: "/srv/fx", HOME: "/home/ada" },
      { HOME: "/home/ada" },
      { FERMIX_HOME: "", HOME: "/home/ada" },
      { FERMIX_HOME: "/srv/fx/" },
      { FERMIX_HOME: "/srv//fx" },
      { FERMIX_HOME: "/srv/./fx" },
      { FERMIX_HOME: "/srv/../fx" },
      { FERMIX_HOME: "relative/fx" },
      { HOME: "/home/ada/" },
      { HOME: "/" },
      { FERMIX_HOME: "/" },
    ];
    for (const env of homes) {
      const early = daemonSocket(env);
      // Where it answers, it is paths.ts's socket; where it does not, the command tree finds the socket.
      if (early !== undefined)
        expect({ env, socket: early }).toEqual({ env, socket: fermixPaths(resolveHome(env)).socket });
    }
    expect(homes.map(daemonSocket).filter((s) => s !== undefined)).toHaveLength(4);
    expect(daemonSocket({})).toBeUndefined();
  });
});
