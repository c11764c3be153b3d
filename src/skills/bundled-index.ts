import { readFileSync } from "node:fs";
import { embeddedFile, listEmbedded } from "../embedded/assets.ts";
import { parseSkill, type SkillDoc } from "./parse.ts";

/**
 * The bundled skills as the build found them: every embedded `skills/…` path, and each SKILL.md's text and parse
 * (none when it does not parse: the catalog then parses it and reports why, as for any broken skill).
 */
export type BundledIndex = { files: string[]; skillFiles: Record<string, { text: string; doc?: SkillDoc }> };

/**
 * A macro (imported `with { type: "macro" }`): run when the code is bundled (or transpiled from source), never
 * in the binary. The bundled skills are fixed for a binary, so its first turn need not list the embedded folder
 * and read and parse each SKILL.md again (~0.8 ms measured); reference files are still read on demand.
 */
export function bundledIndex(): BundledIndex {
  const files = listEmbedded(["skills"]);
  const skillFiles = Object.fromEntries(
    files
      .filter((path) => path.endsWith("/SKILL.md"))
      .map((path) => {
        const text = readFileSync(embeddedFile(path), "utf8");
        return [path, { text, doc: parsedOrNot(text, path) }];
      }),
  );
  return { files, skillFiles };
}

function parsedOrNot(text: string, path: string): SkillDoc | undefined {
  try {
    return parseSkill(text, { file: path, folder: path.split("/")[1]! });
  } catch {
    return undefined;
  }
}
