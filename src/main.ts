#!/usr/bin/env bun

/*
 * The entry. The command tree (src/cli/command-tree.ts) loads only when a command is walked: `--version` and
 * pre-rendered help print before any of it, at the floor a compiled program that prints a line costs (issue 31);
 * `ask` walks a tree of its own (src/cli/ask-root.ts).
 *
 * It imports statically only cli/ask-early.ts, cli/help-fast.ts and runtime/entry-probes.ts, which import nothing at
 * run time (but the help table, on demand) and which nothing else imports, so they are one chunk in the binary.
 * Every other module it would import is shared with other commands and so is a chunk of its own, which `--version`
 * would load and link: that alone measured +70 page faults (~2 ms on a VM where
 * faults are dear) over the print-a-line floor, and without it `--version` is within 10 faults of it.
 */

import { type EarlyAsk, sendPlainAskEarly } from "./cli/ask-early.ts";
import { prerenderedHelp } from "./cli/help-fast.ts";
import { startStdioStats } from "./runtime/entry-probes.ts";

// build.ts defines it; the same as src/version.ts's VERSION, which this file does not import (see above).
declare const FERMIX_VERSION: string | undefined;

async function main(argv: string[]): Promise<number> {
  const verb = argv[0];
  // The fastest path, answered before the command tree's code loads: scripts and `fermix upgrade` call it.
  if (verb === "--version" || verb === "-V" || verb === "version") {
    console.log(typeof FERMIX_VERSION === "string" ? FERMIX_VERSION : (await import("./version.ts")).VERSION);
    return 0;
  }
  // A loop, not includes(): an engine builtin's first call compiles it (cli/ask-early.ts says more).
  let helpAsked = false;
  for (let i = 0; i < argv.length; i++) if (argv[i] === "--help" || argv[i] === "-h") helpAsked = true;
  if (helpAsked) {
    // Help as the build rendered it, before the command tree's code loads (src/cli/help-table.ts).
    const text = await prerenderedHelp(argv);
    if (text !== undefined) {
      // Written as --version is, without loading the CLI's output queue: nothing else is written in this process.
      console.log(text.endsWith("\n") ? text.slice(0, -1) : text);
      return 0;
    }
  }
  // A plain ask goes to a running daemon before the command tree loads, which then overlaps the daemon's turn
  // (cli/ask-early.ts); it also asks the thread pool what stdin and stdout are, memoised for the rest of ask. Help
  // the build did not render is drawn from ask's declaration alone, without any of this.
  let early: EarlyAsk | undefined;
  if (verb === "ask" && !helpAsked) {
    // Asked first, stdin's and stdout's kinds arrive while ask's code loads (cli/stdio-probe.ts reads them).
    early = await sendPlainAskEarly(argv.slice(1), startStdioStats(), process.env);
    // Answered with an event stream, it is read and printed without the command tree (cli/ask-early-answer.ts).
    if (early.plain) {
      const code = await (await import("./cli/ask-early-answer.ts")).finishEarlyAsk(early);
      if (code !== undefined) return code;
    }
  }
  const [{ runCli }, root] = await Promise.all([
    import("./cli/dispatch.ts"),
    verb === "ask"
      ? import("./cli/ask-root.ts").then((m) => m.askRoot)
      : import("./cli/command-tree.ts").then((m) => m.fermix),
  ]);
  try {
    return await runCli(root, argv, undefined, { early });
  } catch (err) {
    const { reportError } = await import("./cli/exit.ts");
    return reportError(err);
  }
}

// Imported it does nothing; run, it is the CLI. Long-running verbs return when
// done; exiting explicitly ends anything still holding the loop (stdin, timers).
if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    async (err) => {
      const { writeErr } = await import("./cli/output.ts");
      await writeErr(`fermix: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
