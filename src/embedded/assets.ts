import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { isCompiledBinary } from "../runtime/binary.ts";
import { readText } from "../runtime/files.ts";

/**
 * What build.ts embeds into the binary: each name is a top-level folder inside the binary, filled from
 * the source path beside it. (Bun embeds an asset folder under its base name, so each source path ends
 * in its name.) Only the built, signed catalog goes in — not the plugin sources or the development
 * signing key next to them.
 */
export const EMBEDDED = { catalog: "dist/embed/catalog", skills: "skills" } as const;
export type EmbeddedName = keyof typeof EMBEDDED;

const SOURCE_ROOT = join(import.meta.dirname, "..", "..");

/** The project checkout when running from source; undefined inside the compiled binary. */
export function sourceRoot(): string | undefined {
  return isCompiledBinary() ? undefined : SOURCE_ROOT;
}

/** Where one embedded folder's files are read from: the binary's virtual file system, or the checkout. */
export function embeddedDir(name: EmbeddedName): string {
  return isCompiledBinary() ? join(import.meta.dirname, name) : join(SOURCE_ROOT, EMBEDDED[name]);
}

/** Every embedded file (of the named folders only, when given) as `<name>/<path>` (`skills/self-knowledge/SKILL.md`), sorted. */
export function listEmbedded(only?: readonly EmbeddedName[]): string[] {
  const out: string[] = [];
  for (const name of only ?? (Object.keys(EMBEDDED) as EmbeddedName[])) {
    const base = embeddedDir(name);
    const walk = (dir: string) => {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return;
      }
      for (const entry of names.sort()) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else out.push(`${name}/${relative(base, path)}`);
      }
    };
    walk(base);
  }
  return out;
}

/** The file behind an embedded path from listEmbedded. */
export function embeddedFile(path: string): string {
  const [name, ...rest] = path.split("/");
  if (!name || !(name in EMBEDDED)) throw new Error(`not an embedded path: ${path}`);
  return join(embeddedDir(name as EmbeddedName), ...rest);
}

export function readEmbedded(path: string): Promise<string> {
  return readText(embeddedFile(path));
}
