import type { AskRequest } from "../protocol/ask-schemas.ts";
import { nothingAt, type StdioStats } from "../runtime/entry-probes.ts";
import { postOverUnixSocket } from "../runtime/unix-post.ts";

/*
 * The plainest ask, `fermix ask some words` with a daemon up, sent before the command tree loads (issue 31). Parsing
 * those words, walking the tree to `ask` and loading its run cost a compiled client ~7 ms before its first byte went
 * out, while the daemon sat idle; sent first, that work overlaps the daemon's turn. After the send, an answer that
 * comes as an event stream is read and printed by ask's own printing without the command tree at all
 * (cli/ask-early-answer.ts, cli/ask-output.ts); anything else (no daemon, an error answer) goes on to the command
 * tree, whose ask run adopts the request when the one it built is the same, so the fallback to the in-process turn,
 * the errors and the exit codes are its own.
 *
 * It imports only runtime/entry-probes.ts and runtime/unix-post.ts (which import nothing) and only src/main.ts imports
 * it, so it is part of the entry's own chunk in the binary: the first chunk a process loads on demand costs ~35 page
 * faults and every one after ~10-15 (~25 µs each on the VMs we measure on), ~85 before the send when this file used
 * paths.ts, the protocol's version and ask-client.ts. So it repeats three facts those own, each held equal to its owner
 * by test/cli/ask-early.test.ts: where the daemon's socket is (config/paths.ts), the protocol header
 * (protocol/protocol-version.ts), and how an ask is posted (protocol/ask-client.ts's askOverSocket).
 *
 * Plain loops rather than filter, every, some and join: those are the engine's own JavaScript, compiled on their first
 * call in a process (~0.1-0.4 ms each, measured in a compiled program), and here every one would be a first call.
 */

/** `--timeout`'s default: how long an ask waits for its answer. */
export const DEFAULT_TIMEOUT_MS = 300_000;

/** What src/main.ts hands to ask's run (through the dispatcher's RunData). */
export type EarlyAsk = {
  /** Stdin's and stdout's stats as main.ts asked for them (cli/stdio-probe.ts reads them). */
  stdio?: StdioStats;
  /**
   * The promise of the daemon's answer when `request` (to `socket`) is the one that went, so it is not sent twice
   * (socket-send.ts's answerFrom reads it). Taken once; a request that differs cancels the one that went.
   */
  take(socket: string, request: AskRequest): Promise<Response> | undefined;
  /**
   * The plain request that went, when one did: src/main.ts finishes it without the command tree when the daemon
   * answers with an event stream (cli/ask-early-answer.ts); otherwise ask's run takes it as above.
   */
  plain?: { socket: string; responding: Promise<Response> };
};

type Sent = { socket: string; body: string; responding: Promise<Response>; abort: AbortController };

/**
 * Sends the request `fermix ask <argv…>` builds, now, when that request is certain from the words alone: no option
 * but --daemon (every word is taken as it is), a socket at the daemon's path, and a stdin with nothing to add (a
 * terminal, /dev/null or closed: a pipe or a file would be read into the question). Anything else is left to the
 * command tree.
 * Bun only: `stdio` is what main.ts asked of it (runtime/entry-probes.ts).
 */
export async function sendPlainAskEarly(
  argv: readonly string[],
  stdio: StdioStats | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<EarlyAsk> {
  // --daemon only says that the daemon must answer (exit 3 when it is down: ask-run.ts's deliver, on adoption).
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) if (argv[i] !== "--daemon") words.push(argv[i]!);
  const sent = stdio && isPlain(words) ? await sendIfDaemon(words, stdio, env) : undefined;
  let pending = sent;
  return {
    stdio,
    plain: sent && { socket: sent.socket, responding: sent.responding },
    take(socket, request) {
      const early = pending;
      pending = undefined;
      if (!early) return undefined;
      if (early.socket === socket && early.body === JSON.stringify(request)) return early.responding;
      early.abort.abort(new Error("superseded"));
      return undefined;
    },
  };
}

async function sendIfDaemon(
  argv: readonly string[],
  stdio: StdioStats,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Sent | undefined> {
  const socket = daemonSocket(env);
  if (socket === undefined || nothingAt(socket)) return undefined;
  // A closed stdin (its stat fails) has nothing to add either (cli/stdio-probe.ts: "closed").
  const stdinAddsNothing = stdio[0].then(
    (stat) => stat.isCharacterDevice(),
    () => true,
  );
  const body = JSON.stringify(plainRequest(argv));
  const abort = new AbortController();
  // Sent while Bun's thread pool still answers what stdin is, which its first job takes ~0.5 ms to do, all but its
  // last byte: the daemon reads the head and starts on the request meanwhile, and no turn begins before that byte.
  // A stdin with something to add abandons it unfinished (ask's run then sends the whole question).
  const { sent, answer: responding } = postOverUnixSocket(socket, "/v1/ask", {
    headers: { [PROTOCOL_HEADER]: PROTOCOL_VERSION, "content-type": "application/json", accept: "text/event-stream" },
    body,
    signal: abort.signal,
    release: stdinAddsNothing,
  });
  // Adopted later, or never (the daemon down: the in-process turn runs instead); its failure is the adopter's.
  responding.catch(() => {});
  if (!(await stdinAddsNothing)) return undefined;
  // Written on this thread's event loop: the command tree's loading, which holds the loop, waits until it has gone.
  await sent;
  return { socket, body, responding, abort };
}

/** protocol/protocol-version.ts's header and version, as socket-send.ts sends them. */
export const PROTOCOL_HEADER = "x-fermix-protocol";
export const PROTOCOL_VERSION = "1";

/** Only words: nothing that parses as an option, `--` or a help flag, and not all blank. */
function isPlain(argv: readonly string[]): boolean {
  let blank = true;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word.startsWith("-")) return false;
    if (word.trim()) blank = false;
  }
  return !blank;
}

/** What ask-run.ts's draftRequest builds from such words (test/cli/ask-early.test.ts holds them equal). */
export function plainRequest(argv: readonly string[]): AskRequest {
  let text = argv[0] ?? "";
  for (let i = 1; i < argv.length; i++) text += ` ${argv[i]}`;
  return { text, cwd: process.cwd(), timeout_ms: DEFAULT_TIMEOUT_MS };
}

/**
 * config/paths.ts's `fermixPaths(resolveHome(env)).socket` where that is a plain join: FERMIX_HOME, else HOME's
 * .fermix, absolute and with no empty, "." or ".." segment. Any other home (relative, unset HOME, one node:path would
 * normalise) is undefined here and left to the command tree.
 */
export function daemonSocket(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const home = env.FERMIX_HOME || (env.HOME ? `${env.HOME}/.fermix` : undefined);
  if (!home?.startsWith("/")) return undefined;
  const segments = home.slice(1).split("/");
  for (let i = 0; i < segments.length; i++) {
    if (segments[i] === "" || segments[i] === "." || segments[i] === "..") return undefined;
  }
  return `${home}/daemon.sock`;
}
