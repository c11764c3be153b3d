import { homedir } from "node:os";
import { isatty } from "node:tty";
import { processEnv } from "../../config/env.ts";
import { fermixPaths, resolveHome } from "../../config/paths.ts";
import { newId } from "../../ids.ts";
import type { AskRequest } from "../../protocol/schemas.ts";
import ask from "../ask.ts";
import { buildRequest } from "../ask-run.ts";
import { defineCommand } from "../command.ts";
import { EXIT } from "../exit.ts";
import { createHistory } from "./history.ts";
import { createLineReader } from "./line-reader.ts";
import { ANSI } from "./markdown.ts";
import { runChatSession } from "./session.ts";
import { connectChat } from "./transport.ts";

export default defineCommand({
  meta: {
    name: "chat",
    usage: "chat [options] [words…]",
    description: "Talk with fermix in this terminal",
    details:
      "Without words on a terminal it opens an interactive session: Up recalls earlier lines (kept in " +
      "$FERMIX_HOME/chat_history), a pasted block is one message, a line ending in \\ goes on, slash commands " +
      "(/help, /new, /compact, /sandbox …) work as in a chat channel, Ctrl-C cancels the answer, Ctrl-D leaves. " +
      "With words, or with stdin not a terminal, it is `fermix ask`. It takes ask's options.",
    examples: ["fermix chat", "fermix chat -s work", 'fermix chat "what is a monad?"'],
    takesWords: true,
  },
  // Ask's options, whatever ask gains: a chat is a series of asks in one session.
  args: ask.args,
  async run(context) {
    const { args } = context;
    if (args._.length > 0 || !isatty(0) || args.stdin === true) return ask.run!(context);
    const env = processEnv();
    // Ask's own reading of its flags, for a placeholder text each message then replaces.
    const template: AskRequest & { continue?: unknown } = await buildRequest({ ...args, _: ["…"], stdin: false });
    // One session for the whole chat, so /new or /whoami before the first answer already address it; with -c the
    // first answer names the session it continued.
    if (!template.session_id && !template.continue) template.session_id = newId("ses");
    const paths = fermixPaths(resolveHome(env));
    const history = createHistory(paths.chatHistory);
    const transport = await connectChat(env, args.daemon as boolean | undefined);
    const reader = createLineReader({ input: process.stdin, output: process.stdout }, history.load());
    const colour = isatty(1) && !env.NO_COLOR && env.TERM !== "dumb";
    let lastChar = "\n";
    try {
      await runChatSession({
        transport,
        reader,
        styles: colour ? ANSI : undefined,
        out: {
          write: (text) => {
            if (text) lastChar = text.at(-1)!;
            process.stdout.write(text);
          },
          atLineStart: () => lastChar === "\n",
        },
        err: (text) => process.stderr.write(text),
        template,
        saveHistory: () => history.save(reader.history()),
        userHome: env.HOME || homedir(),
      });
    } finally {
      reader.close();
      await transport.close();
    }
    return EXIT.ok;
  },
});
