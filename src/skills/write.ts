import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseSkill, renderSkill, type SkillDoc } from "./parse.ts";

/**
 * Writes `<dir>/<name>/SKILL.md` atomically: the text goes to a temp file beside it and is renamed over
 * the old one, so a crash leaves either the previous skill or the new one, never half a file. The text
 * is parsed with the same rules the catalog uses before anything touches the disk.
 */
export function writeHomeSkill(dir: string, doc: SkillDoc): { file: string; text: string } {
  const folder = join(dir, doc.name);
  const file = join(folder, "SKILL.md");
  const text = renderSkill(doc);
  parseSkill(text, { file, folder: doc.name });
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const temp = join(folder, `.SKILL.md.${process.pid}.${crypto.randomUUID()}.tmp`);
  try {
    writeFileSync(temp, text, { mode: 0o600, flush: true });
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return { file, text };
}
