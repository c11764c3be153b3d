/*
 * Cutting streamed Markdown into messages: at the best boundary between `min` and `max` UTF-16 units (a
 * paragraph, else a line, else a sentence, else a space), with code fences kept balanced — a cut inside a fence
 * closes it at the end of the chunk and opens it again, with its language, at the start of the next.
 */

/** A fence that is open where the text was cut: the line that opened it (reopened in the next chunk). */
export type OpenFence = { opener: string; closer: string };

export type Cut = { chunk: string; rest: string; open?: OpenFence };

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The fence left open at the end of `text`, if one is. */
export function openFenceAt(text: string): OpenFence | undefined {
  let open: { opener: string; mark: string } | undefined;
  for (const line of text.split("\n")) {
    const mark = FENCE.exec(line)?.[1];
    if (!mark) continue;
    if (!open) open = { opener: line.trim(), mark };
    // A closing fence is the same character, at least as long, and nothing after it.
    else if (mark[0] === open.mark[0] && mark.length >= open.mark.length && line.trim() === mark) open = undefined;
  }
  return open && { opener: open.opener, closer: open.mark };
}

/** `text` as a message on its own: a fence it leaves open is closed (a draft mid-code-block). */
export function balanceFences(text: string): string {
  const open = openFenceAt(text);
  return open ? `${text.trimEnd()}\n${open.closer}` : text;
}

/**
 * Cuts the head off `text` when it is longer than `max`: the chunk ends at the best boundary in [min, max],
 * preferring one outside a code block. `rest` keeps everything after the cut (the caller prepends the reopened
 * fence, `open.opener`, when it sends the rest).
 */
export function takeChunk(text: string, min: number, max: number): Cut {
  if (text.length <= max) return finishCut(text, text.length);
  return finishCut(text, cutPoint(text, min, max));
}

/** All of `text` as chunks of at most `max` units (the last may be shorter than `min`), fences balanced in each. */
export function splitChunks(text: string, min: number, max: number): string[] {
  const chunks: string[] = [];
  let rest = text;
  while (rest.trim()) {
    const cut = takeChunk(rest, min, max);
    if (cut.chunk.trim()) chunks.push(cut.chunk);
    rest = cut.open && cut.rest.trim() ? `${cut.open.opener}\n${cut.rest}` : cut.rest;
  }
  return chunks;
}

function finishCut(text: string, at: number): Cut {
  // Blank lines never start a message (a new item begins after the loop's paragraph break).
  const head = text.slice(0, at).replace(/^(?:[ \t]*\n)+/, "");
  const open = openFenceAt(head);
  const rest = text.slice(at).replace(/^\n+/, "");
  const chunk = open ? `${head.trimEnd()}\n${open.closer}` : head.trimEnd();
  return { chunk, rest: open ? rest : rest.replace(/^\s+/, ""), ...(open ? { open } : {}) };
}

/** Where to cut `text` (longer than `max`): the best-scoring boundary in [min, max], the latest of equals. */
function cutPoint(text: string, min: number, max: number): number {
  let best = -1;
  let bestScore = -1;
  let inFence: string | undefined;
  let lineStart = 0;
  // Line ends up to max: a blank line outside a fence is a paragraph (3), any other line end outside one 2,
  // a line end inside a fence 1 (the fence is then closed and reopened).
  while (lineStart < text.length) {
    const nl = text.indexOf("\n", lineStart);
    if (nl === -1 || nl + 1 > max) break;
    const line = text.slice(lineStart, nl);
    const mark = FENCE.exec(line)?.[1];
    if (mark && !inFence) inFence = mark;
    else if (mark && inFence && mark[0] === inFence[0] && mark.length >= inFence.length && line.trim() === mark)
      inFence = undefined;
    const at = nl + 1;
    if (at >= min) {
      const paragraph = !inFence && text[at] === "\n";
      const score = inFence ? 1 : paragraph ? 3 : 2;
      if (score >= bestScore) {
        best = at;
        bestScore = score;
      }
    }
    lineStart = at;
  }
  if (best !== -1) return best;
  // One long line: after a sentence, else after a space, else a hard cut that never splits a surrogate pair.
  const window = text.slice(min, max);
  const sentence = lastMatch(window, /[.!?;:](?=\s)/g);
  if (sentence !== -1) return min + sentence + 1;
  const space = window.lastIndexOf(" ");
  if (space !== -1) return min + space + 1;
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

function lastMatch(text: string, re: RegExp): number {
  let last = -1;
  for (const m of text.matchAll(re)) last = m.index;
  return last;
}
