import { type Env, processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { sendAsk } from "../protocol/ask-client.ts";
import type { AskRequest } from "../protocol/ask-schemas.ts";
import { socketSender } from "../protocol/socket-send.ts";
import { fileSizeSync } from "../runtime/files.ts";
import { onBun } from "../runtime/host.ts";
import { probeDescriptor, probeStdio, type StdioStats } from "./stdio-probe.ts";

/*
 * The plainest ask, `fermix ask some words` with a daemon up, sent before the command tree loads (issue 31). Parsing
 * those words, walking the tree to `ask` and loading its run cost a compiled client ~7 ms before its first byte went
 * out, while the daemon sat idle; sent first, that work overlaps the daemon's turn. Everything after the send is the
 * one path every ask takes: src/main.ts goes on to the command tree, and ask-run.ts's `deliver` adopts this request
 * when the one it built is the same (takeEarlyAsk), so the printing, the errors and the exit codes are its own.
 */

/** `--timeout`'s default: how long an ask waits for its answer. */
export const DEFAULT_TIMEOUT_MS = 300_000;

type EarlyAsk = { socket: string; body: string; responding: Promise<Response>; abort: AbortController };
let early: EarlyAsk | undefined;

/**
 * Sends the request `fermix ask <argv…>` builds, now, when that request is certain from the words alone: no option
 * (every word is taken as it is), a socket at the daemon's path, and a stdin with nothing to add (a terminal,
 * /dev/null or closed: a pipe or a file would be read into the question). Anything else is left to the command tree.
 */
export async function sendPlainAskEarly(
  argv: readonly string[],
  stdio?: StdioStats,
  env: Env = processEnv(),
): Promise<void> {
  probeStdio(stdio);
  if (!onBun || !isPlain(argv)) return;
  const socket = fermixPaths(resolveHome(env)).socket;
  // Bun sizes a socket as Infinity and a missing path as 0 (ask-run.ts: nothingAtSocket).
  if (fileSizeSync(socket) === 0) return;
  const stdin = await probeDescriptor(0);
  if (stdin !== "character" && stdin !== "closed") return;
  const request = plainRequest(argv);
  const abort = new AbortController();
  const responding = sendAsk(socketSender(socket), request, abort.signal);
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
