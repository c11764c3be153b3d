// Reads every import of a source tree (static, type-only, re-exports, dynamic `import("…")` and bare side-effect
// imports) and answers the two questions the layering test asks: which files import which, and which of those
// edges break a rule or close a cycle. Kept beside the test, not in src/: it is a check of the code, not a part.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export type ImportEdge = { from: string; to: string; line: number; text: string };

/** Every .ts file under `root`, as paths relative to it. */
export function sourceFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

// Block comments and whole-line comments go (an example in a comment is not an import); strings stay, since a
// specifier is one. A `//` inside a string (a URL) is never at a line's start, so it survives.
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " "))
    .split("\n")
    .map((line) => (line.trimStart().startsWith("//") ? "" : line))
    .join("\n");
}

const STATIC = /^[ \t]*(?:import|export)\b[^;'"`]*?\bfrom\s*["']([^"']+)["']/gm;
const BARE = /^[ \t]*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\s*\(\s*["']([^"']+)["']\s*[,)]/g;

/** The relative imports of one file, resolved to paths under `root` (package imports are not the tree's business). */
export function importsOf(root: string, file: string): ImportEdge[] {
  const text = withoutComments(readFileSync(join(root, file), "utf8"));
  const edges: ImportEdge[] = [];
  for (const pattern of [STATIC, BARE, DYNAMIC]) {
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1]!;
      if (!specifier.startsWith(".")) continue;
      const target = relative(root, resolve(root, dirname(file), specifier));
      const line = text.slice(0, match.index).split("\n").length;
      edges.push({ from: file, to: target, line, text: match[0].trim().replace(/\s+/g, " ") });
    }
  }
  return edges;
}

/** A file's part: its top-level folder, or the loose file itself (`app.ts`). */
export function partOf(file: string): string {
  const slash = file.indexOf("/");
  return slash < 0 ? file : `${file.slice(0, slash)}/`;
}

export function importGraph(root: string): ImportEdge[] {
  return sourceFiles(root).flatMap((file) => importsOf(root, file));
}

/** Strongly connected components with more than one member (Tarjan), each sorted; the graph's cycles. */
export function cycles(nodes: string[], edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of nodes) if (!indexOf.has(v)) visit(v);
  return found;
}

export function adjacency(edges: ImportEdge[], key: (file: string) => string): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (const e of edges) {
    const from = key(e.from);
    const to = key(e.to);
    if (from === to) continue;
    if (!map.has(from)) map.set(from, new Set());
    map.get(from)!.add(to);
  }
  return map;
}
