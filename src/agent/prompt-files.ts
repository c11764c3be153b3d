import { existsSync, readFileSync } from "node:fs";
import type { FermixPaths } from "../config/paths.ts";
import { writePrivateFileAtomically } from "../fs/write-private-file.ts";
import guidanceTemplate from "./templates/FERMIX.md" with { type: "text" };
import identityTemplate from "./templates/IDENTITY.md" with { type: "text" };
import memoryTemplate from "./templates/MEMORY.md" with { type: "text" };
import soulTemplate from "./templates/SOUL.md" with { type: "text" };
import userTemplate from "./templates/USER.md" with { type: "text" };

export type PromptFiles = { identity: string; soul: string; guidance: string; user: string; memory: string };
type Which = keyof PromptFiles;

const TEMPLATES: Record<Which, string> = {
  identity: identityTemplate,
  soul: soulTemplate,
  guidance: guidanceTemplate,
  user: userTemplate,
  memory: memoryTemplate,
};

const NAME_LINE = /^\*\*Name:\*\*.*$/m;

/**
 * Writes each prompt file that does not exist yet from the template shipped in this binary. A file
 * that exists is the owner's and is never rewritten, by seeding or by an upgrade.
 */
export function seedPromptFiles(paths: FermixPaths, agentName: string): Which[] {
  const seeded: Which[] = [];
  for (const which of Object.keys(TEMPLATES) as Which[]) {
    const file = paths.promptFiles[which];
    if (existsSync(file)) continue;
    const text = which === "identity" ? TEMPLATES.identity.replace("{{agent_name}}", agentName) : TEMPLATES[which];
    writePrivateFileAtomically(file, text);
    seeded.push(which);
  }
  return seeded;
}

/**
 * [fermix_core.agent] name is the source of truth for the agent's name: the Name line of IDENTITY.md
 * follows it at daemon start. An unset name, and every other edit to the file, are left alone.
 */
export function reconcileAgentName(paths: FermixPaths, configuredName: string | undefined): boolean {
  const name = configuredName?.trim();
  if (!name) return false;
  const file = paths.promptFiles.identity;
  if (!existsSync(file)) return false;
  const text = readFileSync(file, "utf8");
  if (!NAME_LINE.test(text)) return false;
  const updated = text.replace(NAME_LINE, `**Name:** ${name}`);
  if (updated === text) return false;
  writePrivateFileAtomically(file, updated);
  return true;
}

export function readPromptFiles(paths: FermixPaths): PromptFiles {
  const read = (which: Which) => {
    try {
      return readFileSync(paths.promptFiles[which], "utf8").trim();
    } catch {
      return "";
    }
  };
  return {
    identity: read("identity"),
    soul: read("soul"),
    guidance: read("guidance"),
    user: read("user"),
    memory: read("memory"),
  };
}
