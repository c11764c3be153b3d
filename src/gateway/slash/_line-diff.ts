/** One line of an edit script: kept, removed from the old text, or added by the new. */
export type DiffLine = { op: " " | "-" | "+"; text: string };

/**
 * A line diff by longest common subsequence. Persona files are short (tens of lines), so the quadratic table is
 * cheap; past MAX_LINES a side the diff degrades to "all removed, all added" rather than growing the table.
 */
const MAX_LINES = 2000;

export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  if (a.length > MAX_LINES || b.length > MAX_LINES) {
    return [...a.map((text) => ({ op: "-" as const, text })), ...b.map((text) => ({ op: "+" as const, text }))];
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: " ", text: a[i++]! });
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ op: "-", text: a[i++]! });
    else out.push({ op: "+", text: b[j++]! });
  }
  while (i < a.length) out.push({ op: "-", text: a[i++]! });
  while (j < b.length) out.push({ op: "+", text: b[j++]! });
  return out;
}

/** How many lines a diff removes or adds. */
export function changedLines(diff: readonly DiffLine[]): number {
  return diff.filter((l) => l.op !== " ").length;
}

/** The changes with `context` unchanged lines around each, `…` between distant hunks. */
export function renderDiff(diff: readonly DiffLine[], context = 1): string {
  const near = new Set<number>();
  diff.forEach((line, index) => {
    if (line.op === " ") return;
    for (let k = index - context; k <= index + context; k++) near.add(k);
  });
  const out: string[] = [];
  let last = -1;
  diff.forEach((line, index) => {
    if (!near.has(index)) return;
    if (last >= 0 && index > last + 1) out.push("…");
    out.push(`${line.op} ${line.text}`.trimEnd());
    last = index;
  });
  return out.join("\n");
}

function splitLines(text: string): string[] {
  const trimmed = text.replace(/\r\n/g, "\n").replace(/\n+$/, "");
  return trimmed ? trimmed.split("\n") : [];
}
