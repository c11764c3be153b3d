import * as v from "valibot";
import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { redact } from "../observability/redact.ts";
import { createDaemonClient, NOT_RUNNING } from "../protocol/client.ts";
import { type AskDone, AskRequest } from "../protocol/schemas.ts";
import { NO_USAGE } from "./_ask-usage.ts";
import type { ParsedArgs } from "./args.ts";
import { printSchemaAnswer, schemaArgs, schemaFromArgs } from "./ask-schema.ts";
import {
  attachesStdin,
  extractWanted,
  printAfterAnswer,
  SCRIPT_REPEATABLE,
  scriptArgs,
  scriptFields,
} from "./ask-script.ts";
import { defineCommand } from "./command.ts";
import { asFermixError, exitCodeFor, UsageError } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";
import { isCharacterDevice, readStdin, type StdinMode } from "./stdin.ts";

export const DEFAULT_TIMEOUT_MS = 300_000;
/** How long a signalled in-process ask gives its plugin servers to stop before they are killed outright. */
const SIGNAL_GRACE_MS = 2_000;

export default defineCommand({
  meta: {
    name: "ask",
    usage: "ask [options] [words…]",
    description: "Ask once and print the answer",
    details: "Piped stdin is added to the words. Runs through the daemon when one is up, otherwise in this process.",
    examples: [
      'fermix ask "what is a monad, in two sentences?"',
      'git diff | fermix ask "write the commit message"',
      'id=$(fermix ask --json "remember: the build is red" | jq -r .session_id)',
      'fermix ask -s "$id" "what did I tell you?"',
      'fermix ask -c "and in one word?"',
      'fermix ask -a screenshot.png "what does this error say?"',
      'fermix ask -x --no-tools "a bash one-liner that counts lines in *.ts" > count.sh',
    ],
    exitCodes: [
      [0, "answered"],
      [1, "failed: the provider or the turn failed, or --extract found no code block"],
      [2, "usage: a bad option, file or tool name; nothing was sent"],
      [3, "the daemon is required (--daemon) but not running"],
      [4, "the answer did not match --schema"],
      [5, "refused: a budget ([fermix_core.budget]) is used up; nothing was sent"],
    ],
    takesWords: true,
    repeatable: SCRIPT_REPEATABLE,
  },
  args: {
    words: { type: "positional", required: false, valueHint: "words…", description: "the question" },
    session: { type: "string", alias: "s", valueHint: "ID", description: "continue (or start) the session ID" },
    timeout: {
      type: "string",
      alias: "t",
      valueHint: "MS",
      description: "give up after MS milliseconds (default 300000)",
    },
    json: {
      type: "boolean",
      description:
        'print {"status","response","session_id","usage"} as JSON ("truncated": true when the answer was cut)',
    },
    stdin: { type: "boolean", description: "wait for stdin to end (--no-stdin: ignore stdin)" },
    provider: { type: "string", valueHint: "NAME", description: "ask this provider first (openai, anthropic, …)" },
    model: { type: "string", valueHint: "MODEL", description: "use this model on that provider" },
    daemon: {
      type: "boolean",
      description: "require the daemon (exit 3 when it is down); --no-daemon: run in-process",
    },
    ...schemaArgs,
    ...scriptArgs,
  },
  async run({ args }) {
    const json = args.json === true;
    let printed = false;
    try {
      const extract = extractWanted(args);
      // An extracted block is known only once the whole answer is in, so nothing streams.
      const streaming = !json && !extract && (await isCharacterDevice(1));
      const request = await buildRequest(args);
      const onText = streaming
        ? (delta: string) => {
            printed = true;
            void writeOut(delta);
          }
        : undefined;
      // Approval requests and other notices are for the person, never part of the answer on stdout.
      const onNotice = (text: string) => void writeErr(`${text}\n`);
      if (request.schema) {
        // A structured answer is validated whole before it is printed, so nothing streams; a repair turn waits
        // for the first in-process ask to finish closing.
        const daemonFlag = args.daemon as boolean | undefined;
        const ask = (r: AskRequest) => finishing.then(() => deliver(r, daemonFlag, { onNotice }));
        if (extract) throw UsageError("ask: --schema prints the JSON alone; it does not go with --extract");
        const done = await printSchemaAnswer(
          { ...request, schema: request.schema },
          { json, pretty: streaming, deliver: ask },
        );
        const code = await printAfterAnswer(done, { usage: args.usage === true });
        await finishing;
        return code;
      }
      const done = await deliver(request, args.daemon as boolean | undefined, { onText, onNotice });
      if (json) {
        const truncated = done.truncated ? { truncated: true } : {};
        const usage = { usage: done.usage ?? NO_USAGE };
        const out = { status: "ok", response: done.response, session_id: done.session_id, ...truncated, ...usage };
        await writeOut(`${JSON.stringify(out)}\n`);
      } else if (streaming && printed) await writeOut("\n");
      else if (!extract) await writeOut(`${done.response}\n`);
      // The answer stays whole on stdout; that it is cut short is said beside it, never silently.
      if (done.truncated) await writeErr(`${truncationNote(done)}\n`);
      const code = await printAfterAnswer(done, { extract, usage: args.usage === true });
      await finishing;
      return code;
    } catch (err) {
      const error = asFermixError(err);
      if (printed) await writeOut("\n");
      if (json) {
        const shown = error.code === NOT_RUNNING ? NOT_RUNNING : redact(error.message);
        await writeOut(`${JSON.stringify({ status: "error", error: shown, code: error.code })}\n`);
      } else {
        await writeErr(`fermix: ${redact(error.message)}\n`);
      }
      await finishing;
      return exitCodeFor(error);
    }
  },
});

/** What a cut answer means and how to get the rest: the session continues where the answer stopped. */
export function truncationNote(done: Pick<AskDone, "provider" | "model" | "session_id">): string {
  return (
    `fermix: the answer was cut at the model's output limit (${done.provider} ${done.model}); ` +
    `for the rest, ask it to continue: fermix ask -s ${done.session_id} "continue" (or ask for a shorter answer)`
  );
}

export async function buildRequest(args: ParsedArgs): Promise<AskRequest> {
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
  const parsed = v.safeParse(AskRequest, {
    ...(await scriptFields(args)),
    text,
    ...(args.session !== undefined ? { session_id: args.session } : {}),
    cwd: process.cwd(),
    provider: args.provider,
    model: args.model,
    schema: await schemaFromArgs(args),
    timeout_ms: timeout,
  });
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue.path?.map((p) => String(p.key)).join(".");
    throw UsageError(`ask: ${field === "session_id" ? "--session" : (field ?? "input")}: ${issue.message}`);
  }
  return parsed.output;
}

/**
 * Through the daemon when it answers; otherwise the same turn in this process against the same
 * FERMIX_HOME. `--daemon` makes a missing daemon an error (exit 3) instead.
 */
/** In-process asks leave follow-up work (compaction) running after the reply; the CLI waits for it before exit. */
let finishing: Promise<void> = Promise.resolve();

async function deliver(
  request: AskRequest,
  daemonFlag: boolean | undefined,
  callbacks: { onText?: (delta: string) => void; onNotice: (text: string) => void },
): Promise<AskDone> {
  const env = processEnv();
  const paths = fermixPaths(resolveHome(env));
  if (daemonFlag !== false) {
    // Connecting is the test: a missing or stale socket fails at once with not_running.
    try {
      return await createDaemonClient(paths.socket).ask(request, callbacks);
    } catch (err) {
      if (!(err instanceof FermixError && err.code === NOT_RUNNING) || daemonFlag === true) throw err;
    }
  }
  const [{ createApp }, { askLocally }, { exitOnTerminationSignals }] = await Promise.all([
    import("../app.ts"),
    import("../gateway/local-ask.ts"),
    import("./termination.ts"),
  ]);
  const app = await createApp({ env });
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
