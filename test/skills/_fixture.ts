import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { EmbeddedFiles } from "../../src/skills/sources.ts";

/** A SKILL.md text with the usual front matter. */
export function skillText(name: string, description = `Use for ${name}.`, extra = "", body = `# ${name}\nDo it.`) {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}\n`;
}

/** Embedded files held in memory, as the binary's virtual file system would list and read them. */
export function fakeEmbedded(files: Record<string, string>): EmbeddedFiles & { files: Record<string, string> } {
  return {
    files,
    list: () => Object.keys(files).sort(),
    read: async (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`not embedded: ${path}`);
      return text;
    },
  };
}

/** A temp `$FERMIX_HOME/skills` that tests write skill files into; removed with `await using`. */
export function tempSkillsDir() {
  const base = mkdtempSync(join(tmpdir(), "fx-skills-"));
  const dir = join(base, "skills");
  return {
    dir,
    write(path: string, text: string) {
      const file = join(dir, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    remove(path: string) {
      rmSync(join(dir, path), { recursive: true, force: true });
    },
    async [Symbol.asyncDispose]() {
      rmSync(base, { recursive: true, force: true });
    },
  };
}
