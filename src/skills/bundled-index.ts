import { readFileSync } from "node:fs";
import { embeddedFile, listEmbedded } from "../embedded/assets.ts";

/** The bundled skills as the build found them: every embedded `skills/…` path, and each SKILL.md's text. */
export type BundledIndex = { files: string[]; skillFiles: Record<string, string> };

/**
 * A macro (imported `with { type: "macro" }`): run when the code is bundled (or transpiled from source), never
 * in the binary. The bundled skills are fixed for a binary, so its first turn need not list the embedded folder
 * and read each SKILL.md again (~0.5 ms measured); reference files are still read on demand.
 */
export function bundledIndex(): BundledIndex {
  const files = listEmbedded(["skills"]);
  const skillFiles = Object.fromEntries(
    files.filter((path) => path.endsWith("/SKILL.md")).map((path) => [path, readFileSync(embeddedFile(path), "utf8")]),
  );
  return { files, skillFiles };
}
