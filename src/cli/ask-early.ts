import { type Env, processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { sendAsk } from "../protocol/ask-client.ts";
import type { AskRequest } from "../protocol/ask-schemas.ts";
import { PROTOCOL_HEADER, PROTOCOL_VERSION } from "../protocol/protocol-version.ts";
import type { DescriptorStat } from "../runtime/files.ts";

/*
 * The plainest ask, `fermix ask some words` with a daemon up, sent before the command tree loads (issue 31). Parsing
 * those words, walking the tree to `ask` and loading its run cost a compiled client ~7 ms before its first byte went
 * out, while the daemon sat idle; sent first, that work overlaps the daemon's turn. Everything after the send is the
 * one path every ask takes: src/main.ts goes on to the command tree, and ask-run.ts's `deliver` adopts this request
 * when the one it built is the same (takeEarlyAsk), so the printing, the errors and the exit codes are its own.
 *
 * It imports only paths.ts and the protocol's version: every module is a chunk of its own in the binary, and loading
 * the socket client's (socket-send.ts, error.ts, runtime/http.ts, runtime/files.ts, stdio-probe.ts) before the send
 * measured ~2.5 ms of the client's CPU. So it gives ask-client.ts's sendAsk Bun's fetch itself, and socket-send.ts
 * reads the answer (answerFrom).
 */

/** Stdin's and stdout's stats, asked of Bun by src/main.ts before any of ask's code loaded. */
export type StdioStats = readonly [Promise<DescriptorStat>, Promise<DescriptorStat>];
let stdioStats: StdioStats | undefined;

/** The stat src/main.ts started for `fd`, for cli/stdio-probe.ts to read instead of asking again. */
export function startedStat(fd: 0 | 1): Promise<DescriptorStat> | undefined {
  return stdioStats?.[fd];
}

/** `--timeout`'s default: how long an ask waits for its answer. */
export const DEFAULT_TIMEOUT_MS = 300_000;

/** `responding` is fetch's own promise: socket-send.ts's answerFrom turns its failures into the protocol's errors. */
type EarlyAsk = { socket: string; body: string; responding: Promise<Response>; abort: AbortController };
let early: EarlyAsk | undefined;

/**
 * Sends the request `fermix ask <argv…>` builds, now, when that request is certain from the words alone: no option
 * (every word is taken as it is), a socket at the daemon's path, and a stdin with nothing to add (a terminal,
 * /dev/null or closed: a pipe or a file would be read into the question). Anything else is left to the command tree.
 * Bun only: `stdio` is what main.ts asked of it.
 */
export async function sendPlainAskEarly(
  argv: readonly string[],
  stdio?: StdioStats,
  env: Env = processEnv(),
): Promise<void> {
  stdioStats = stdio;
  if (!stdio || !isPlain(argv)) return;
  const socket = fermixPaths(resolveHome(env)).socket;
  // Bun sizes a socket as Infinity and a missing path as 0 (ask-run.ts: nothingAtSocket).
  if (Bun.file(socket).size === 0) return;
  // A closed stdin (its stat fails) has nothing to add either (cli/stdio-probe.ts: "closed").
  if (
    !(await stdio[0].then(
      (stat) => stat.isCharacterDevice(),
      () => true,
    ))
  )
    return;
  const request = plainRequest(argv);
  const abort = new AbortController();
  // Bun's fetch with the header socket-send.ts's sender adds; its answer is read through answerFrom when adopted.
  const send = (path: string, init: RequestInit = {}) =>
    fetch(`http://fermix${path}`, {
      ...init,
      unix: socket,
      headers: { [PROTOCOL_HEADER]: String(PROTOCOL_VERSION), ...(init.headers as Record<string, string>) },
    } as RequestInit);
  const responding = sendAsk(send, request, abort.signal);
  // Adopted later, or never (the daemon down: the in-process turn runs instead); its failure is the adopter's.
  responding.catch(() => {});

  early = { socket, body: JSON.stringify(request), responding, abort };
}

/** Only words: nothing that parses as an option, `--` or a help flag. */
function isPlain(argv: readonly string[]): boolean {
  return argv.length > 0 && argv.every((word) => !word.startsWith("-")) && argv.join(" ").trim().length > 0;
}

/** What ask-run.ts's draftRequest builds from such words (test/cli/ask-early.test.ts holds them equal). */
export function plainRequest(argv: readonly string[]): AskRequest {
  return { text: argv.join(" "), cwd: process.cwd(), timeout_ms: DEFAULT_TIMEOUT_MS };
}

/**
 * The answer to the request sent early, when `request` (to `socket`) is the one that went: then it is not sent twice.
 * Taken once. A request that differs is not the one the daemon got: that early one is cancelled.
 */
export function takeEarlyAsk(socket: string, request: AskRequest): Promise<Response> | undefined {
  const sent = early;
  early = undefined;
  if (!sent) return undefined;
  if (sent.socket === socket && sent.body === JSON.stringify(request)) return sent.responding;
  sent.abort.abort(new Error("superseded"));
  return undefined;
}
