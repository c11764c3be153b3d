import { type Env, processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import type { AskDone } from "../protocol/ask-answer-schemas.ts";
import { askOverSocket, readAsk } from "../protocol/ask-client.ts";
import type { AskRequest } from "../protocol/ask-schemas.ts";
import { answerFrom, NOT_RUNNING, socketSender } from "../protocol/socket-send.ts";
import { fileSizeSync } from "../runtime/files.ts";
import { onBun } from "../runtime/host.ts";
import type { JsonSchema } from "../schema/concise.ts";
import type { ParsedArgs } from "./args.ts";
import type { EarlyAsk } from "./ask-early.ts";
import { type AnswerPrinter, type AnswerShape, answerPrinter, printAnswer, printAskFailure } from "./ask-output.ts";
import { attachesStdin, extractWanted, printAfterAnswer, scriptFields } from "./ask-script.ts";
import { UsageError } from "./exit.ts";
import { writeErr } from "./output.ts";
import { isCharacterDevice, readStdin, type StdinMode } from "./stdin.ts";
import { useStartedStats } from "./stdio-probe.ts";

/**
 * What `fermix ask` does once its options are parsed: src/cli/ask.ts declares the verb and loads this when it
 * runs, so its help renders without it. The path through a running daemon loads ask's part of the protocol and
 * the socket client; `--schema`'s validator and the in-process turn are imported only when they are used.
 */

/** `--timeout`'s default (cli/ask-early.ts builds its plain requests with the same: its test holds them equal). */
export const DEFAULT_TIMEOUT_MS = 300_000;
/** How long a signalled in-process ask gives its plugin servers to stop before they are killed outright. */
const SIGNAL_GRACE_MS = 2_000;

/**
 * The verb's run: the answer on stdout (streamed to a terminal), notes on stderr; the exit code. `early`: what
 * src/main.ts did before the command tree loaded (cli/ask-early.ts).
 */
export async function runAsk(args: ParsedArgs, early?: EarlyAsk): Promise<number> {
  useStartedStats(early?.stdio);
  const json = args.json === true;
  let printer: AnswerPrinter | undefined;
  try {
    const extract = extractWanted(args);
    const route = routeOf(args.daemon as boolean | undefined, early);
    // No daemon to send to: the in-process turn's code starts loading now, while ask waits on its stdin and stdout.
    if (!route.tryDaemon) loadLocalTurn().catch(() => {});
    // An extracted block is known only once the whole answer is in, so nothing streams.
    const shape: AnswerShape = {
      json,
      extract,
      usage: args.usage === true,
      streaming: !json && !extract && (await isCharacterDevice(1)),
    };
    const draft = await draftRequest(args);
    printer = answerPrinter(shape);
    const { onNotice } = printer.callbacks;
    if (draft.schema) {
      // A structured answer is validated whole before it is printed, so nothing streams; a repair turn waits
      // for the first in-process ask to finish closing.
      const ask = (r: AskRequest) => finishing.then(() => deliver(r, route, { onNotice }));
      if (extract) throw UsageError("ask: --schema prints the JSON alone; it does not go with --extract");
      const [{ printSchemaAnswer }, { checkRequest }] = await Promise.all([
        import("./ask-schema.ts"),
        import("./ask-check.ts"),
      ]);
      const request = checkRequest(draft);
      const done = await printSchemaAnswer(
        { ...request, schema: draft.schema },
        { json, pretty: shape.streaming, deliver: ask },
      );
      const code = await printAfterAnswer(done, { usage: shape.usage });
      await finishing;
      return code;
    }
    const code = await printAnswer(await deliver(draft, route, printer.callbacks), shape, printer);
    await finishing;
    return code;
  } catch (err) {
    const code = await printAskFailure(err, { json }, printer);
    await finishing;
    return code;
  }
}

/** The request `args` ask for, checked (src/cli/ask-check.ts). */
export async function buildRequest(args: ParsedArgs): Promise<AskRequest> {
  const [draft, { checkRequest }] = await Promise.all([draftRequest(args), import("./ask-check.ts")]);
  return checkRequest(draft);
}

/**
 * The request `args` ask for, before its check against the protocol's schema (usage errors of the options
 * themselves are thrown here). `deliver` checks it before an in-process turn, or when the daemon refused it.
 */
async function draftRequest(args: ParsedArgs): Promise<AskRequest> {
  const words = args._.join(" ");
  // `-a -` makes stdin an attachment, read as bytes; it is then not the question's text.
  const mode: StdinMode =
    args.stdin === false || attachesStdin(args) ? "ignore" : args.stdin === true ? "wait" : "auto";
  const piped = await readStdin(mode, words.trim().length > 0, (line) => void writeErr(`${line}\n`));
  const text = [words, piped].filter((part) => part && part.trim().length > 0).join("\n\n");
  if (!text) throw UsageError("ask: nothing to ask — give words, or pipe text on stdin");

  let timeout = DEFAULT_TIMEOUT_MS;
  if (args.timeout !== undefined) {
    timeout = Number(args.timeout);
    if (!Number.isInteger(timeout) || timeout <= 0)
      throw UsageError("ask: --timeout takes a whole number of milliseconds");
  }
  return {
    ...(await scriptFields(args)),
    text,
    ...(args.session !== undefined ? { session_id: args.session as string } : {}),
    cwd: process.cwd(),
    provider: args.provider as string | undefined,
    model: args.model as string | undefined,
    schema: await schemaFromArgs(args),
    timeout_ms: timeout,
  };
}

/** `--schema`/`--schema-multi`'s JSON Schema; the module that reads and checks it loads only when one is given. */
async function schemaFromArgs(args: ParsedArgs): Promise<JsonSchema | undefined> {
  if (args.schema === undefined && args["schema-multi"] === undefined) return undefined;
  return (await import("./ask-schema.ts")).schemaFromArgs(args);
}

/** In-process asks leave follow-up work (compaction) running after the reply; the CLI waits for it before exit. */
let finishing: Promise<void> = Promise.resolve();

/**
 * Where an ask goes, decided once. `daemonFlag` is --daemon (true) or --no-daemon (false) as given; `tryDaemon`: the
 * daemon is asked first (a socket is there, or --daemon insists).
 */
type Route = { env: Env; socket: string; daemonFlag: boolean | undefined; tryDaemon: boolean; early?: EarlyAsk };

function routeOf(daemonFlag: boolean | undefined, early: EarlyAsk | undefined): Route {
  const env = processEnv();
  const socket = fermixPaths(resolveHome(env)).socket;
  return {
    env,
    socket,
    early,
    daemonFlag,
    tryDaemon: daemonFlag === true || (daemonFlag !== false && !nothingAtSocket(socket)),
  };
}

/**
 * Nothing at the socket's path, no daemon: the in-process turn starts without a connect that could only fail
 * (~1.3 ms of the event loop). Asked without node:fs, whose import alone costs ~1.7 ms in the binary and would
 * fall on the daemon-up ask too: Bun sizes a socket (no regular file) as Infinity, a missing path as 0. Deno
 * always connects.
 */
function nothingAtSocket(socket: string): boolean {
  return onBun && fileSizeSync(socket) === 0;
}

let localTurn:
  | Promise<[typeof import("../app.ts"), typeof import("../gateway/local-ask.ts"), typeof import("./termination.ts")]>
  | undefined;

/** The in-process turn's modules, imported once (runAsk starts them early when no daemon is there). */
function loadLocalTurn() {
  localTurn ??= Promise.all([import("../app.ts"), import("../gateway/local-ask.ts"), import("./termination.ts")]);
  return localTurn;
}

/**
 * Through the daemon when it answers; otherwise the same turn in this process against the same
 * FERMIX_HOME. `--daemon` makes a missing daemon an error (exit 3) instead.
 */
async function deliver(
  draft: AskRequest,
  route: Route,
  callbacks: { onText?: (delta: string) => void; onNotice: (text: string) => void },
): Promise<AskDone> {
  const check = () => import("./ask-check.ts").then(({ checkRequest }) => checkRequest(draft));
  if (route.tryDaemon) {
    // Connecting is the test: a stale socket fails at once with not_running. The request goes unchecked: the daemon
    // checks it against the same schema before any turn, and only when it refuses one does ask's own check run, to
    // name the option at fault as a usage error (exit 2) - a daemon-up ask builds no request schema (issue 31).
    try {
      // src/main.ts may have sent this very request before the command tree loaded (cli/ask-early.ts).
      const early = route.early?.take(route.socket, draft);
      return await (early
        ? readAsk(answerFrom(route.socket, early), callbacks)
        : askOverSocket(socketSender(route.socket), draft, callbacks));
    } catch (err) {
      if (err instanceof FermixError && err.code === "invalid_request") await check();
      if (!(err instanceof FermixError && err.code === NOT_RUNNING) || route.daemonFlag === true) throw err;
    }
  }
  const [request, [{ createApp }, { askLocally }, { exitOnTerminationSignals }]] = await Promise.all([
    check(),
    loadLocalTurn(),
  ]);
  const app = await createApp({ env: route.env });
  // A signal cancels the turn and stops the plugin servers this ask started before the process goes.
  const cancel = new AbortController();
  exitOnTerminationSignals(async () => {
    cancel.abort(new Error("interrupted"));
    await app.close();
  }, SIGNAL_GRACE_MS);
  try {
    return await askLocally(app, request, { ...callbacks, signal: cancel.signal });
  } finally {
    // The answer is printed by the caller; work that follows a reply (compaction) finishes before exit.
    finishing = app.idle().finally(() => app.close());
  }
}
