/**
 * `ask -x` / `--extract-last`: the code of one fenced block of the answer (CommonMark: a line of three or more
 * backticks or tildes, up to three spaces in, closed by a fence of the same character at least as long). The info
 * string (```ts) is dropped; a block the answer never closes runs to its end (an answer cut at the output limit).
 * Undefined when the answer has no fenced block.
 */
export function extractCodeBlock(answer: string, which: "first" | "last"): string | undefined {
  const blocks = codeBlocks(answer);
  return which === "first" ? blocks[0] : blocks.at(-1);
}

function codeBlocks(answer: string): string[] {
  const blocks: string[] = [];
  let open: { fence: string; indent: number; lines: string[] } | undefined;
  for (const line of answer.split(/\r?\n/)) {
    const fence = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(line);
    if (!open) {
      // A backtick fence's info string may not contain a backtick (it would be inline code).
      if (fence && !(fence[2]![0] === "`" && fence[3]!.includes("`"))) {
        open = { fence: fence[2]!, indent: fence[1]!.length, lines: [] };
      }
      continue;
    }
    const closes =
      fence && fence[2]![0] === open.fence[0] && fence[2]!.length >= open.fence.length && !fence[3]!.trim();
    if (closes) {
      blocks.push(open.lines.join("\n"));
      open = undefined;
    } else {
      // Content lines lose as much of their indentation as the opening fence had (CommonMark 4.5).
      open.lines.push(line.replace(new RegExp(`^ {0,${open.indent}}`), ""));
    }
  }
  if (open) blocks.push(open.lines.join("\n"));
  return blocks;
}
