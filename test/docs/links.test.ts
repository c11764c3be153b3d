import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The README and docs/ link only to files that exist inside the repository: a reader of a clone (or of the
 * repository's web page) has nothing else.
 */

const ROOT = resolve(import.meta.dir, "..", "..");
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

describe("documentation links", () => {
  test("the README links each page under docs/", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const linked = new Set([...readme.matchAll(LINK)].map((m) => m[1]!.split("#")[0]));
    const unlinked = PAGES.filter((page) => page.startsWith("docs/") && !linked.has(page));
    expect(unlinked).toEqual([]);
  });

  test("every relative link resolves to a file inside the repository", () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(join(ROOT, page), "utf8");
      for (const [, target] of text.matchAll(LINK)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target!) || target!.startsWith("#")) continue;
        const path = resolve(dirname(join(ROOT, page)), target!.split("#")[0]!);
        const inside = !relative(ROOT, path).startsWith("..");
        if (!inside || !existsSync(path)) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("no page points at the design notes outside the repository", () => {
    const outside = PAGES.filter((page) =>
      /\.\.\/shared\/|\/work\/shared/.test(readFileSync(join(ROOT, page), "utf8")),
    );
    expect(outside).toEqual([]);
  });
});
