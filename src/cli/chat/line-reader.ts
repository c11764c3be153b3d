import { createInterface, emitKeypressEvents, type Interface, type Key } from "node:readline";
import { HISTORY_LINES } from "./history.ts";

export type Terminal = { input: NodeJS.ReadStream; output: NodeJS.WriteStream };

/** What one prompt gave: a message (one or more lines), or the owner leaving (Ctrl-D, a second Ctrl-C). */
export type ReadResult = { kind: "message"; text: string } | { kind: "exit" };

const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";

/**
 * The chat's prompt, on node:readline. Measured under the compiled Bun 1.4.5 binary in a tmux pane: Up recalls
 * the `history` option's entries, Ctrl-C reaches the interface as its SIGINT event, Ctrl-D on an empty line
 * closes it, and with bracketed paste switched on the keypress decoder reports `paste-start`/`paste-end` — but
 * the interface still ends a line at each pasted newline, so a paste is stitched back into one message here
 * (as is a line ending in `\`). One interface per prompt: between prompts (while a turn streams) the keys are
 * read raw, so typing never echoes into the answer and Ctrl-C cancels the turn rather than a line.
 */
export function createLineReader(terminal: Terminal, history: string[]) {
  const { input, output } = terminal;
  emitKeypressEvents(input);
  output.write(PASTE_ON);
  const pasteOff = () => output.write(PASTE_OFF);
  process.once("exit", pasteOff);

  function open(prompt: string, withHistory: boolean): Interface {
    return createInterface({
      input,
      output,
      terminal: true,
      prompt,
      // A copy: the interface adds each physical line itself, while a message is one entry.
      history: withHistory ? [...history] : [],
      historySize: withHistory ? HISTORY_LINES : 0,
    });
  }

  return {
    /** Newest first; each sent message once. */
    history: () => history,

    /** One message: Enter sends; a pasted block or a trailing `\` continues it on a `… ` line. */
    read(prompt: string, continuation: string): Promise<ReadResult> {
      const rl = open(prompt, true);
      const parts: string[] = [];
      let pasting = false;
      let armed = false;
      const onKey = (_: string | undefined, key: Key | undefined) => {
        if (key?.name === "paste-start") pasting = true;
        else if (key?.name === "paste-end") pasting = false;
      };
      input.on("keypress", onKey);
      return new Promise<ReadResult>((resolve) => {
        let settled = false;
        const finish = (result: ReadResult) => {
          if (settled) return;
          settled = true;
          input.off("keypress", onKey);
          rl.close();
          if (result.kind === "message") remember(result.text);
          resolve(result);
        };
        const more = (part: string) => {
          parts.push(part);
          rl.setPrompt(continuation);
          rl.prompt();
        };
        rl.on("line", (raw) => {
          // A recalled multi-line entry comes back with its newlines as carriage returns.
          const line = raw.replace(/\r/g, "\n");
          if (pasting) return more(line);
          if (line.endsWith("\\")) return more(line.slice(0, -1));
          const text = [...parts, line].join("\n").replace(/\n+$/, "");
          if (!text.trim()) {
            parts.length = 0;
            rl.setPrompt(prompt);
            rl.prompt();
            return;
          }
          finish({ kind: "message", text });
        });
        rl.on("SIGINT", () => {
          if (rl.line || parts.length) {
            // Ctrl-C drops what is typed, as a shell does, and the chat goes on.
            parts.length = 0;
            rl.write(null, { ctrl: true, name: "e" });
            rl.write(null, { ctrl: true, name: "u" });
            output.write("^C\n");
            armed = false;
          } else if (armed) {
            output.write("\n");
            return finish({ kind: "exit" });
          } else {
            armed = true;
            output.write("\n(Ctrl-C again or Ctrl-D to leave)\n");
          }
          rl.setPrompt(prompt);
          rl.prompt();
        });
        rl.on("close", () => {
          if (!settled) output.write("\n");
          finish({ kind: "exit" });
        });
        rl.prompt();
      });
    },

    /** A yes/no question (an approval); anything but y/yes, Ctrl-C or Ctrl-D is no. */
    ask(question: string): Promise<boolean> {
      const rl = open(question, false);
      return new Promise<boolean>((resolve) => {
        let answer = false;
        rl.on("line", (line) => {
          answer = /^\s*y(es)?\s*$/i.test(line);
          rl.close();
        });
        rl.on("SIGINT", () => {
          output.write("^C\n");
          rl.close();
        });
        rl.on("close", () => resolve(answer));
        rl.prompt();
      });
    },

    /** While a turn runs: keys are read raw and dropped; Ctrl-C calls `onInterrupt`. Returns the release. */
    busy(onInterrupt: () => void): () => void {
      const onKey = (_: string | undefined, key: Key | undefined) => {
        if (key?.ctrl && key.name === "c") onInterrupt();
      };
      input.setRawMode(true);
      input.on("keypress", onKey);
      input.resume();
      return () => {
        input.off("keypress", onKey);
        input.pause();
        input.setRawMode(false);
      };
    },

    close(): void {
      pasteOff();
      process.off("exit", pasteOff);
      input.pause();
    },
  };

  function remember(text: string): void {
    const at = history.indexOf(text);
    if (at >= 0) history.splice(at, 1);
    history.unshift(text);
    if (history.length > HISTORY_LINES) history.length = HISTORY_LINES;
  }
}

export type LineReader = ReturnType<typeof createLineReader>;
