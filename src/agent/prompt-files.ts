import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { FermixPaths } from "../config/paths.ts";
import { writePrivateFileAtomically } from "../fs/write-private-file.ts";
import { sha256Hex } from "../runtime/hash.ts";
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
 * The templates without variables, whose seeded copy can be compared with what a later build ships
 * (IDENTITY.md embeds the agent's name, USER.md and MEMORY.md are rewritten by the memory review).
 */
const TRACKED: Partial<Record<Which, string>> = { guidance: "FERMIX.md", soul: "SOUL.md" };

/** `bootstrap/main/.seeded.json`: for each tracked file, the sha256 of the template it was seeded from. */
export type SeedRecord = Record<string, { sha256: string; seeded_at: string }>;

export function seedRecordFile(paths: FermixPaths): string {
  return join(dirname(paths.promptFiles.guidance), ".seeded.json");
}

/**
 * Writes each prompt file that does not exist yet from the template shipped in this binary. A file
 * that exists is the owner's and is never rewritten, by seeding or by an upgrade.
 */
export function seedPromptFiles(paths: FermixPaths, agentName: string, now: () => number = Date.now): Which[] {
  const seeded: Which[] = [];
  // Read only when a tracked file is seeded: this runs at the start of every in-process ask.
  let record: SeedRecord | undefined;
  for (const which of Object.keys(TEMPLATES) as Which[]) {
    const file = paths.promptFiles[which];
    if (existsSync(file)) continue;
    const text = which === "identity" ? TEMPLATES.identity.replace("{{agent_name}}", agentName) : TEMPLATES[which];
    writePrivateFileAtomically(file, text);
    seeded.push(which);
    const tracked = TRACKED[which];
    if (tracked) {
      record ??= readSeedRecord(paths) ?? {};
      record[tracked] = { sha256: sha256Hex(text), seeded_at: new Date(now()).toISOString() };
    }
  }
  if (record) {
    writePrivateFileAtomically(seedRecordFile(paths), `${JSON.stringify(record, null, 2)}\n`);
  }
  return seeded;
}

export function readSeedRecord(paths: FermixPaths): SeedRecord | undefined {
  try {
    return JSON.parse(readFileSync(seedRecordFile(paths), "utf8")) as SeedRecord;
  } catch {
    return undefined;
  }
}

/**
 * Which shipped templates have moved on since this install was seeded (`fermix doctor`'s bootstrap templates
 * row). Says nothing about the owner's own edits: a hand-edited file is theirs. `undefined`: no seed record
 * (an install seeded before the record existed).
 */
export function templateDrift(paths: FermixPaths): { moved: string[]; tracked: string[] } | undefined {
  const record = readSeedRecord(paths);
  if (!record) return undefined;
  const tracked = Object.keys(record).sort();
  const moved = tracked.filter((name) => {
    const which = (Object.keys(TRACKED) as Which[]).find((w) => TRACKED[w] === name);
    return which !== undefined && record[name]!.sha256 !== sha256Hex(TEMPLATES[which]);
  });
  return { moved, tracked };
}

/** The template this build ships for a tracked file name (`FERMIX.md`), for people comparing by hand. */
export function shippedTemplate(name: string): string | undefined {
  const which = (Object.keys(TRACKED) as Which[]).find((w) => TRACKED[w] === name);
  return which ? TEMPLATES[which] : undefined;
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
