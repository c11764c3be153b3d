/**
 * A deliberately small reading of sh syntax, good enough to find the commands in a script: quotes and
 * backslashes are removed, `; & | && || ( )`, newlines and the words `{ } !` end a command, and `> >> <` come out as
 * their own words so a redirect target can be recognised. It does not expand anything; the command
 * checker treats `$HOME` and `~` as the home itself. Command substitutions (`$(…)`, backticks) start a
 * new command where they stand; inside double quotes they are reported as scripts of their own (the text
 * from there on), so what runs inside them is checked too.
 */
export type ShellReading = { commands: string[][]; substitutions: string[] };

/** Bounds the work a hostile script full of quoted `$(` can cause. */
const MAX_SUBSTITUTIONS = 32;
const SEPARATORS = new Set([";", "&", "|", "\n", "(", ")"]);
/** Reserved words that group commands; as words of their own they end one command like a separator. */
const GROUPING = new Set(["{", "}", "!"]);

export function readShell(script: string): ShellReading {
  const commands: string[][] = [];
  const substitutions: string[] = [];
  let command: string[] = [];
  let word = "";
  let inWord = false;
  let quoted = false;
  const endWord = () => {
    if (inWord && GROUPING.has(word) && !quoted) {
      if (command.length) commands.push(command);
      command = [];
    } else if (inWord) command.push(word);
    quoted = false;
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (command.length) commands.push(command);
    command = [];
  };

  let i = 0;
  while (i < script.length) {
    const ch = script[i]!;
    if (ch === "\\") {
      // A backslash-newline joins lines; any other escaped character is taken literally.
      if (script[i + 1] !== "\n") {
        word += script[i + 1] ?? "";
        inWord = true;
      }
      i += 2;
    } else if (ch === "'") {
      const end = script.indexOf("'", i + 1);
      word += script.slice(i + 1, end === -1 ? undefined : end);
      inWord = true;
      quoted = true;
      i = end === -1 ? script.length : end + 1;
    } else if (ch === '"') {
      i = readDoubleQuoted(
        script,
        i + 1,
        (text) => {
          word += text;
        },
        (at) => {
          if (substitutions.length < MAX_SUBSTITUTIONS) substitutions.push(script.slice(at));
        },
      );
      inWord = true;
      quoted = true;
    } else if (ch === "$" && script[i + 1] === "(") {
      // Unquoted, what runs inside is read right here: the substitution just starts a new command.
      endCommand();
      i += 2;
    } else if (ch === "`") {
      endCommand();
      i += 1;
    } else if (ch === ">" || ch === "<") {
      endWord();
      let op = ch;
      while (script[i + op.length] === ">" || script[i + op.length] === "|" || script[i + op.length] === "&") {
        op += script[i + op.length];
      }
      command.push(op);
      i += op.length;
    } else if (ch === "#" && !inWord) {
      const end = script.indexOf("\n", i);
      i = end === -1 ? script.length : end;
    } else if (SEPARATORS.has(ch)) {
      endCommand();
      i += 1;
    } else if (ch === " " || ch === "\t" || ch === "\r") {
      endWord();
      i += 1;
    } else {
      word += ch;
      inWord = true;
      i += 1;
    }
  }
  endCommand();
  return { commands, substitutions };
}

function readDoubleQuoted(
  script: string,
  start: number,
  add: (text: string) => void,
  onSubstitution: (at: number) => void,
): number {
  let i = start;
  while (i < script.length && script[i] !== '"') {
    if (script[i] === "\\" && i + 1 < script.length && '"\\$`\n'.includes(script[i + 1]!)) {
      if (script[i + 1] !== "\n") add(script[i + 1]!);
      i += 2;
    } else {
      if (script[i] === "`") onSubstitution(i + 1);
      if (script[i] === "$" && script[i + 1] === "(") onSubstitution(i + 2);
      add(script[i]!);
      i += 1;
    }
  }
  return i + 1;
}
