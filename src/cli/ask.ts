import { defineCommand } from "./command.ts";
import type { RunData } from "./dispatch.ts";

/*
 * `fermix ask`'s declaration, its options included (those that ask-schema.ts and ask-script.ts read as well).
 * Its help and its argument parsing need nothing more, so what it does when it runs (ask-run.ts: the protocol,
 * the socket client, the in-process turn) is imported only then, and so is each of those files.
 */

/** The options ask-schema.ts reads (`--schema`, `--schema-multi`). */
const schemaArgs = {
  schema: {
    type: "string",
    valueHint: "SCHEMA",
    description: "answer as JSON matching SCHEMA: inline JSON Schema, a file, or concise ('name, age int, bio: …')",
  },
  "schema-multi": {
    type: "string",
    valueHint: "SCHEMA",
    description: 'answer {"items": [...]}, each item matching SCHEMA',
  },
} as const;

/** The options for scripts that ask-script.ts reads (issue 28). */
const scriptArgs = {
  attach: {
    type: "string",
    alias: "a",
    valueHint: "PATH",
    description: "attach a PNG, JPEG, GIF, WebP (up to 20 MiB) or PDF; repeatable; - reads it from stdin",
  },
  continue: { type: "boolean", alias: "c", description: "continue the most recent ask session" },
  system: { type: "string", valueHint: "TEXT", description: "add TEXT to the instructions, for this ask only" },
  tools: { type: "string", valueHint: "A,B", description: "offer only these built-in tools" },
  "no-tools": { type: "boolean", description: "offer no tools at all (a plain completion)" },
  extract: { type: "boolean", alias: "x", description: "print only the first fenced code block of the answer" },
  "extract-last": { type: "boolean", description: "print only the last fenced code block" },
  usage: { type: "boolean", alias: "u", description: "print the token usage on stderr after the answer" },
} as const;

/** The options that may repeat (command.ts `meta.repeatable`). */
const SCRIPT_REPEATABLE = ["attach"] as const;

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
  async run({ args, data }) {
    return (await import("./ask-run.ts")).runAsk(args, (data as RunData).early);
  },
});
