import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type * as v from "valibot";
import { Config } from "../../src/config/schema.ts";

/**
 * docs/CONFIG.md against the config schema, both ways, so the page cannot drift from what config.toml accepts.
 *
 * The page's form: a heading that starts with a backticked table, `### \`[fermix_core.plugins]\``, then a
 * Markdown table whose rows start with the backticked key and carry a type, a default and a meaning:
 * `| \`discovery_timeout_seconds\` | integer 1–300 | 10 | … |`. A record's keys are written as any
 * `<placeholder>` (`[fermix_core.oauth.<provider>]`, `| \`<KEY>\` |`); placeholders compare equal whatever
 * their name. Any other heading ends the table section, and rows outside one are prose, not keys.
 */

const DOC = join(import.meta.dir, "..", "..", "docs", "CONFIG.md");
const PLACEHOLDER = "<name>";

type Schema = v.GenericSchema & Record<string, any>;
type Leaf = { path: string; schema: Schema };

/** Every leaf key path of a schema, record keys as `<name>`: `fermix_core.oauth.<name>.client_id`. */
function keyPaths(schema: Schema, path: string[] = []): Leaf[] {
  switch (schema.type) {
    case "optional":
    case "exact_optional":
    case "nullable":
    case "nullish":
    case "undefinedable":
    case "non_optional":
    case "non_nullable":
    case "non_nullish":
      return keyPaths(schema.wrapped, path);
    case "object":
    case "strict_object":
    case "loose_object":
    case "object_with_rest": {
      const entries = Object.entries(schema.entries as Record<string, Schema>);
      const leaves = entries.flatMap(([key, entry]) => keyPaths(entry, [...path, key]));
      // objectWithRest: every other key of the table holds a value of the rest schema.
      if (schema.type === "object_with_rest") leaves.push(...keyPaths(schema.rest, [...path, PLACEHOLDER]));
      return leaves.length ? leaves : [{ path: path.join("."), schema }];
    }
    case "record":
      return keyPaths(schema.value, [...path, PLACEHOLDER]);
    case "union":
    case "variant": {
      // A union of tables is a table with the keys of each; a union with a plain value (a secret, a path or a
      // list of paths) is one key whose value takes several shapes.
      const options = (schema.options as Schema[]).map(unwrap);
      if (options.every(isTable)) return dedupe(options.flatMap((o) => keyPaths(o, path)));
      return [{ path: path.join("."), schema }];
    }
    case "lazy":
      return keyPaths(schema.getter(undefined), path);
    default:
      return [{ path: path.join("."), schema }];
  }
}

function unwrap(schema: Schema): Schema {
  return "wrapped" in schema && schema.type !== "pipe" ? unwrap(schema.wrapped) : schema;
}

function isTable(schema: Schema): boolean {
  return ["object", "strict_object", "loose_object", "object_with_rest", "record"].includes(schema.type);
}

function dedupe(leaves: Leaf[]): Leaf[] {
  return [...new Map(leaves.map((l) => [l.path, l])).values()];
}

/** The values a picklist or literal allows: each must be named in its row, so a new option cannot go unmentioned. */
function allowedValues(schema: Schema): string[] {
  const inner = unwrap(schema);
  if (inner.type === "picklist") return (inner.options as unknown[]).map(String);
  if (inner.type === "literal") return [String(inner.literal)];
  return [];
}

// A quoted record key is one key, however many placeholders it spells: `pricing."<provider>/<model>"`.
const normalise = (path: string) => path.replace(/"[^"]*<[^>]+>[^"]*"/g, PLACEHOLDER).replace(/<[^>]+>/g, PLACEHOLDER);

type DocRow = { path: string; line: number; cells: string[]; text: string };

function documentedKeys(text: string): { rows: DocRow[]; problems: string[] } {
  const rows: DocRow[] = [];
  const problems: string[] = [];
  let table: string | undefined;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (/^#{1,6}\s/.test(line)) {
      table = /^#{1,6}\s+`\[([^\]`]+)\]`/.exec(line)?.[1];
      return;
    }
    if (table === undefined || !line.startsWith("|")) return;
    const cells = line
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split("|")
      .map((c) => c.trim());
    const key = /^`([^`]+)`$/.exec(cells[0] ?? "")?.[1];
    if (key === undefined) return; // the header row and its --- separator
    const row = { path: `${table}.${key}`, line: i + 1, cells, text: line };
    if (cells.length !== 4 || cells.some((c) => c.length === 0)) {
      problems.push(`line ${row.line}: ${row.path} needs four filled cells (key, type, default, meaning)`);
    }
    rows.push(row);
  });
  return { rows, problems };
}

describe("docs/CONFIG.md", () => {
  // A missing page fails the tests below with every key listed as missing.
  const text = existsSync(DOC) ? readFileSync(DOC, "utf8") : "";
  const schemaKeys = keyPaths(Config as unknown as Schema);
  const { rows, problems } = documentedKeys(text);
  const byPath = new Map<string, DocRow[]>();
  for (const row of rows) byPath.set(normalise(row.path), [...(byPath.get(normalise(row.path)) ?? []), row]);

  test("the schema walk finds the keys it should (a sanity check of the walker itself)", () => {
    const paths = schemaKeys.map((k) => k.path);
    expect(paths).toContain("fermix_core.plugins.discovery_timeout_seconds");
    expect(paths).toContain("fermix_core.providers.openai.base_url");
    expect(paths).toContain("fermix_core.oauth.<name>.client_secret");
    expect(paths).toContain("fermix_core.plugins.<name>.<name>");
    expect(paths).toContain("sandbox.allowed_roots");
    expect(paths.length).toBeGreaterThan(50);
  });

  test("documents every key the schema accepts", () => {
    const missing = schemaKeys.map((k) => k.path).filter((path) => !byPath.has(normalise(path)));
    expect(missing).toEqual([]);
  });

  test("documents no key the schema does not accept", () => {
    const known = new Set(schemaKeys.map((k) => normalise(k.path)));
    const extra = rows.filter((r) => !known.has(normalise(r.path))).map((r) => `line ${r.line}: ${r.path}`);
    expect(extra).toEqual([]);
  });

  test("documents each key once, with a type, a default and a meaning", () => {
    const repeated = [...byPath.values()]
      .filter((found) => found.length > 1)
      .map((found) => `${found[0]!.path} at lines ${found.map((r) => r.line).join(", ")}`);
    expect([...problems, ...repeated]).toEqual([]);
  });

  test("names every value a picklist key allows", () => {
    const unnamed: string[] = [];
    for (const { path, schema } of schemaKeys) {
      const row = byPath.get(normalise(path))?.[0];
      if (!row) continue;
      for (const value of allowedValues(schema)) {
        if (!row.text.includes(value)) unnamed.push(`${path}: "${value}"`);
      }
    }
    expect(unnamed).toEqual([]);
  });
});
