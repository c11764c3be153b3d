import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** The folders build.ts embeds into the binary, as paths relative to the project root. */
export const EMBEDDED_DIRS = ["catalog", "skills"] as const;

/**
 * Where embedded files are read from: inside the compiled binary its virtual file system (assets keep
 * their project-relative paths beside the entry point); from source, the project checkout itself.
 */
export function embeddedRoot(): string {
  return Bun.isStandaloneExecutable ? import.meta.dir : join(import.meta.dir, "..", "..");
}

/** Lists embedded files as project-relative paths (`skills/self-knowledge/SKILL.md`). */
export function listEmbedded(root = embeddedRoot()): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(root, path));
    }
  };
  for (const dir of EMBEDDED_DIRS) walk(join(root, dir));
  return out;
}

export function readEmbedded(path: string, root = embeddedRoot()): Promise<string> {
  return Bun.file(join(root, path)).text();
}
