/**
 * A short line diff of two small texts (units are ~20 lines): `- old` / `+ new` for the lines that differ,
 * in file order, by longest common subsequence; within a run of changes the removals come first. At most
 * `limit` lines, then a count of the rest.
 */
export function lineDiff(before: string, after: string, limit = 12): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let removed: string[] = [];
  let added: string[] = [];
  const flush = () => {
    out.push(...removed, ...added);
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      flush();
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      added.push(`+ ${b[j++]}`);
    } else {
      removed.push(`- ${a[i++]}`);
    }
  }
  flush();
  if (out.length <= limit) return out;
  return [...out.slice(0, limit), `… ${out.length - limit} more changed lines`];
}
