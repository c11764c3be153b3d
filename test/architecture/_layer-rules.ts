// The layering of src/, as rules over its top-level parts (a folder, or a loose file such as `app.ts`).
// docs/ARCHITECTURE.md states the same rules in prose; this file is what holds them.
import { adjacency, cycles, type ImportEdge, importGraph, partOf, sourceFiles } from "./_import-graph.ts";

/** The base layer: what everything may stand on. */
const BASE = [
  "net/",
  "sandbox/",
  "config/",
  "fs/",
  "observability/",
  "memory/",
  "runtime/",
  "embedded/",
  "trust/",
  "error.ts",
  "ids.ts",
  "version.ts",
  "lazy.ts",
  "valibot-issues.ts",
];

/** What the base layer never imports: every feature, and the roots. */
const ABOVE_BASE = [
  "agent/",
  "capabilities/",
  "skills/",
  "plugins/",
  "mcp/",
  "gateway/",
  "channels/",
  "jobs/",
  "web/",
  "cli/",
  "daemon/",
  "setup/",
  "doctor/",
  "harness/",
  "browser/",
  "media/",
  "sessions/",
  "schema/",
  "app.ts",
  "main.ts",
];

const ABOVE_PROVIDERS = [
  "agent/",
  "gateway/",
  "channels/",
  "jobs/",
  "web/",
  "cli/",
  "app.ts",
  "capabilities/",
  "plugins/",
  "mcp/",
];

export type LayerRule = { parts: string[]; never: string[] };

export const LAYER_RULES: LayerRule[] = [
  { parts: BASE, never: ABOVE_BASE },
  { parts: ["providers/", "auth/"], never: ABOVE_PROVIDERS },
  { parts: ["capabilities/"], never: ["gateway/", "channels/"] },
  { parts: ["agent/"], never: ["channels/"] },
  { parts: ["channels/"], never: ["agent/"] },
  { parts: ["daemon/", "protocol/"], never: ["cli/"] },
  { parts: ["trust/"], never: ["plugins/"] },
  // Stored conversations as the CLI lists them, and the answer-schema tools: read by the CLI, never reaching up.
  { parts: ["sessions/"], never: ["cli/", "gateway/", "agent/", "channels/", "daemon/"] },
  { parts: ["schema/"], never: [...ABOVE_BASE.filter((p) => p !== "schema/"), "providers/"] },
];

/**
 * One sentence per broken rule or cross-part cycle, naming the file and its import; empty when the tree holds.
 * A cycle is a set of files that import each other round (every import counts, type-only ones too); one whose
 * files belong to two or more parts means the arrows between those parts point both ways.
 */
export function layerViolations(root: string, rules: LayerRule[] = LAYER_RULES): string[] {
  const edges = importGraph(root);
  const found: string[] = [];
  for (const e of edges) {
    const from = partOf(e.from);
    const to = partOf(e.to);
    if (from === to) continue;
    for (const rule of rules) {
      if (rule.parts.includes(from) && rule.never.includes(to))
        found.push(`src/${e.from}:${e.line} imports ${to} (\`${e.text}\`): ${from} never imports ${to}`);
    }
  }
  for (const component of fileCycles(root, edges)) {
    const parts = [...new Set(component.map(partOf))];
    if (parts.length > 1) found.push(describeCycle(component, parts, edges));
  }
  return found;
}

/** Every file-level import cycle of the tree (its files, sorted). */
export function fileCycles(root: string, edges: ImportEdge[] = importGraph(root)): string[][] {
  return cycles(
    sourceFiles(root),
    adjacency(edges, (file) => file),
  );
}

// Names every import inside the cycle that crosses a part, so the one to cut is plain to see.
function describeCycle(component: string[], parts: string[], edges: ImportEdge[]): string {
  const inside = edges.filter(
    (e) => component.includes(e.from) && component.includes(e.to) && partOf(e.from) !== partOf(e.to),
  );
  const lines = inside.map((e) => `  src/${e.from}:${e.line} → src/${e.to} (\`${e.text}\`)`);
  return `import cycle between ${parts.join(" and ")} (${component.length} files):\n${lines.join("\n")}`;
}
