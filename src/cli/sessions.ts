import { FermixError } from "../error.ts";
import type { SessionStore, SessionSummary } from "../sessions/session-store.ts";
import { withSessionDatabase } from "./_sessions-local.ts";
import { defineCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";
import { answerQuery } from "./query.ts";

const JSON_ARG = { type: "boolean", description: "print the typed JSON envelope" } as const;
const SESSION_ID = {
  type: "positional",
  required: true,
  valueHint: "ID",
  description: "the session (fermix sessions list)",
} as const;
const LIMIT = { type: "string", valueHint: "N", description: "at most N sessions (default 20, at most 500)" } as const;
const CHANNEL = {
  type: "string",
  valueHint: "NAME",
  description: "only the channel NAME's (cli, telegram, …)",
} as const;
const MAX_LIMIT = 500;
// Mutable: citty's enum type wants string[], and a readonly tuple there loses the args' types.
const FORMATS: string[] = ["md", "json"];

export default defineCommand({
  meta: {
    name: "sessions",
    description: "List, show, export, search and remove stored conversations",
    details:
      "A session is one conversation in memory.db: a `fermix ask` session (its id is what `ask -s` takes), or a channel's chat as channel:chat. Read from memory.db whether or not a daemon runs, which shows the daemon's committed state. Plain output is tab-separated; --json gives the typed envelope.",
    examples: [
      "fermix sessions list --channel telegram",
      "fermix sessions show ses_3f9a1c2b4d5e6f70",
      "fermix sessions export ses_3f9a1c2b4d5e6f70 > monads.md",
      'fermix sessions search "quarterly report"',
      "fermix sessions rm telegram:12345 --yes",
    ],
  },
  default: "list",
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "List sessions, newest first: id, last activity, channel, messages, title" },
      args: { channel: CHANNEL, limit: LIMIT, json: JSON_ARG },
      run: ({ args }) => {
        const opts = { channel: args.channel, limit: limitOf(args.limit, "list") };
        return answer(
          args.json,
          async () => ({ sessions: read((s) => s.list(opts)) }),
          async (r) => {
            const { renderSessionList } = await import("./_sessions-render.ts");
            return renderSessionList(r.sessions);
          },
        );
      },
    }),
    show: defineCommand({
      meta: {
        name: "show",
        description: "Print a session's exchange: each prompt and answer, tool calls in a line each",
      },
      args: { id: SESSION_ID, json: JSON_ARG },
      run: ({ args }) =>
        answer(
          args.json,
          async () => read((s) => withMessages(s, args.id)),
          async ({ session, messages }) => (await import("./_sessions-render.ts")).renderSession(session, messages),
        ),
    }),
    export: defineCommand({
      meta: { name: "export", description: "Print a session as Markdown (# title, ## You / ## fermix) or as JSON" },
      args: {
        id: SESSION_ID,
        format: { type: "enum", options: FORMATS, valueHint: "FORMAT", description: "md (default) or json" },
      },
      async run({ args }) {
        const { session, messages } = read((s) => withMessages(s, args.id));
        const render = await import("./_sessions-render.ts");
        const json = args.format === "json";
        await writeOut(json ? render.renderExportJson(session, messages) : render.renderMarkdown(session, messages));
        return EXIT.ok;
      },
    }),
    search: defineCommand({
      meta: {
        name: "search",
        usage: "sessions search [options] WORDS…",
        description: "Find sessions by words said in them (the index recall searches), best match first",
        takesWords: true,
      },
      args: {
        words: { type: "positional", required: true, valueHint: "WORDS…", description: "what was said" },
        channel: CHANNEL,
        limit: LIMIT,
        json: JSON_ARG,
      },
      run: ({ args }) => {
        const opts = { channel: args.channel, limit: limitOf(args.limit, "search") };
        return answer(
          args.json,
          async () => {
            const found = read((s) => s.search(args._.join(" "), opts));
            if ("error" in found) throw usage("sessions search", found.error);
            return { sessions: found };
          },
          async (r) => (await import("./_sessions-render.ts")).renderSearch(r.sessions),
        );
      },
    }),
    rm: defineCommand({
      meta: {
        name: "rm",
        description: "Delete a session: its messages, summaries, and facts kept for it alone",
        details: "Asks first on a terminal; without one (piped, scripted) it needs --yes.",
      },
      args: {
        id: SESSION_ID,
        yes: { type: "boolean", alias: "y", description: "delete without asking" },
        json: JSON_ARG,
      },
      run: ({ args }) =>
        answer(
          args.json,
          () => remove(args.id, args.yes === true),
          async ({ removed }) => `removed ${removed.id} (${removed.messages} messages)\n`,
        ),
    }),
  },
});

function answer<T>(json: boolean | undefined, query: () => Promise<T>, render: (result: T) => Promise<string>) {
  // answerQuery renders synchronously; the text is prepared with the result so the renderer loads only for text.
  return answerQuery({
    json: json === true,
    query: async () => {
      const result = await query();
      return { result, text: json === true ? "" : await render(result) };
    },
    render: (r) => r.text,
    toJson: (r) => r.result,
  });
}

function read<T>(use: (store: SessionStore) => T): T {
  return withSessionDatabase("read", use);
}

function withMessages(store: SessionStore, id: string) {
  const session = resolveOne(store, id);
  return { session, messages: store.messages(session) };
}

async function remove(id: string, yes: boolean): Promise<{ removed: { id: string; messages: number } }> {
  const session = read((s) => resolveOne(s, id));
  if (!yes) await confirm(session);
  // Resolved again inside the writing connection: the session may have grown (or gone) while the question waited.
  const messages = withSessionDatabase("write", (s) => s.remove(resolveOne(s, id)));
  return { removed: { id: session.id, messages } };
}

/** A person at a terminal answers y; anything else (a script, a pipe) must have said --yes. */
async function confirm(session: SessionSummary): Promise<void> {
  const { isatty } = await import("node:tty");
  if (!isatty(0)) {
    throw usage(
      "sessions rm",
      `stdin is not a terminal, so there is no one to ask; pass --yes to delete ${session.id}`,
    );
  }
  await writeErr(`Delete session ${session.id} (${session.messages} messages)? [y/N] `);
  const reply = (await readLine()).trim().toLowerCase();
  if (reply !== "y" && reply !== "yes") throw new FermixError("cancelled", `kept ${session.id}; nothing was deleted`);
}

async function readLine(): Promise<string> {
  const { stdinStream } = await import("../runtime/stdio.ts");
  const reader = stdinStream().getReader();
  const decoder = new TextDecoder();
  let line = "";
  while (!line.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    line += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return line.split("\n")[0]!;
}

function resolveOne(store: SessionStore, id: string): SessionSummary {
  const found = store.resolve(id);
  const exact = found.filter((s) => s.id === id);
  if (exact.length === 1) return exact[0]!;
  if (found.length === 1) return found[0]!;
  if (!found.length) {
    throw new FermixError("session_not_found", `no session ${id}; \`fermix sessions list\` shows them`, {
      session_id: id,
    });
  }
  throw usage("sessions", `${id} names ${found.length} sessions (${found.map((s) => s.id).join(", ")}); give one`);
}

/**
 * A usage error found inside a query: answerQuery reports it itself, so it names its command for the help hint
 * (the dispatcher adds that only to errors that reach it).
 */
function usage(command: string, message: string): FermixError {
  return new FermixError("usage", `${command}: ${message}`, { command });
}

function limitOf(text: string | undefined, verb: string): number {
  if (text === undefined) return 20;
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= MAX_LIMIT))
    throw UsageError(`sessions ${verb}: --limit takes a whole number from 1 to ${MAX_LIMIT}`);
  return n;
}
