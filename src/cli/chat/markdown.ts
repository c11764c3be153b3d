/** The few ANSI styles the chat uses; identity functions when the output is plain. */
export type Styles = {
  bold(text: string): string;
  dim(text: string): string;
  code(text: string): string;
};

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
export const ANSI: Styles = { bold: sgr(1, 22), dim: sgr(2, 22), code: sgr(36, 39) };
export const PLAIN_STYLES: Styles = { bold: (s) => s, dim: (s) => s, code: (s) => s };

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^#{1,6}\s+(.*?)\s*#*\s*$/;
const BULLET = /^(\s*)[-*+]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;

/**
 * Markdown to a terminal, a line at a time, as the answer streams: headings bold, bullets as •, quotes and
 * fences dim, code blocks verbatim (never reflowed) under a dim label naming their language. Hand-written rather
 * than marked + marked-terminal: those render a whole document (a streamed answer would wait for its end or be
 * re-rendered each delta) and would add their parser and highlighter to the chat's start-up, for the five
 * line shapes a model's answer uses. Plain output (NO_COLOR, not a terminal) is the text as the model wrote it.
 */
export function createMarkdownStream(styles: Styles | undefined, write: (text: string) => void) {
  let pending = "";
  let fence: string | undefined;

  function line(text: string): string {
    if (!styles) return text;
    const opening = FENCE.exec(text);
    if (fence !== undefined) {
      if (opening && opening[2]!.startsWith(fence) && !opening[3]) {
        fence = undefined;
        return styles.dim("└──");
      }
      return styles.code(text);
    }
    if (opening) {
      fence = opening[2]![0]!.repeat(3);
      return styles.dim(`┌── ${opening[3] || "code"}`);
    }
    const heading = HEADING.exec(text);
    if (heading) return styles.bold(inline(heading[1]!, styles));
    if (RULE.test(text)) return styles.dim("─".repeat(40));
    const bullet = BULLET.exec(text);
    if (bullet) return `${bullet[1]}• ${inline(bullet[2]!, styles)}`;
    const quote = QUOTE.exec(text);
    if (quote) return styles.dim(`│ ${quote[1]}`);
    return inline(text, styles);
  }

  return {
    /** A streamed delta: complete lines are rendered now, the rest when its line ends. */
    push(delta: string): void {
      if (!styles) {
        write(delta);
        return;
      }
      pending += delta;
      const end = pending.lastIndexOf("\n");
      if (end < 0) return;
      const complete = pending.slice(0, end).split("\n");
      pending = pending.slice(end + 1);
      write(`${complete.map(line).join("\n")}\n`);
    },
    /** The answer is over: its last line, unfinished by a newline, is rendered too. */
    end(): void {
      if (pending) write(line(pending));
      pending = "";
      fence = undefined;
    },
  };
}

/** **bold** and `code` inside a line; anything else stays as written. */
function inline(text: string, styles: Styles): string {
  return text
    .replace(/`([^`]+)`/g, (_, code: string) => styles.code(code))
    .replace(/\*\*([^*]+)\*\*/g, (_, bold: string) => styles.bold(bold));
}
