import type { AnyTool } from "../capabilities/tool.ts";
import type { Skill } from "../skills/catalog.ts";
import { skillsIndex } from "../skills/prompt-index.ts";
import { buildSystemPrompt, type PromptInput } from "./prompt.ts";

// A daemon's turns build, almost always, the very same prompt as the one before (issue 31: ~0.1 ms a turn, cold).
let last: { input: PromptInput; day: string; prompt: string } | undefined;

/**
 * buildSystemPrompt, or the previous call's prompt when this call's input is the same: the same texts, the very same
 * tool arrays (splitSurfaceReusing hands back the same ones for the same tools) and the same date. The prompt depends
 * on nothing else: of the clock it shows the date alone. The same string object comes back, so a wire that
 * serialises the prompt can recognise it.
 */
export function buildSystemPromptReusing(input: PromptInput): string {
  const day = dayOf(input.now);
  if (last && last.day === day && samePromptInput(last.input, input)) return last.prompt;
  const prompt = buildSystemPrompt(input);
  last = {
    input: { ...input, files: input.files && { ...input.files }, owner: input.owner && { ...input.owner } },
    day,
    prompt,
  };
  return prompt;
}

/**
 * Field by field, whatever fields PromptInput grows: `now` by its date (compared by the caller), the files and the
 * owner's profile by their texts, everything else (strings, and tool arrays by identity) with ===. Plain loops: this
 * runs cold in a young daemon, where array builtins cost more than the comparisons.
 */
function samePromptInput(a: PromptInput, b: PromptInput): boolean {
  return sameFields(a, b, (key, x, y) => key === "now" || ((key === "files" || key === "owner") && sameFields(x, y)));
}

/** The same keys, each value === or `alike` by the caller's rule. */
function sameFields(a: unknown, b: unknown, alike?: (key: string, x: unknown, y: unknown) => boolean): boolean {
  if (typeof a !== "object" || typeof b !== "object" || !a || !b) return a === b;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const key in x) {
    keys++;
    if (x[key] !== y[key] && !alike?.(key, x[key], y[key])) return false;
  }
  for (const _ in y) keys--;
  return keys === 0;
}

/** The date as the prompt states it (buildSystemPrompt's own slice of the ISO time). */
function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

let lastIndex: { skills: readonly Skill[]; surface: readonly AnyTool[]; text: string } | undefined;

/**
 * skillsIndex, or the previous call's text for the very same skill objects (a catalog's snapshot is a new array of
 * the same skills until a rescan) and the very same surface array (a reused split's).
 */
export function skillsIndexReusing(skills: readonly Skill[], surface: readonly AnyTool[]): string {
  if (lastIndex && lastIndex.surface === surface && sameItems(lastIndex.skills, skills)) return lastIndex.text;
  const text = skillsIndex(skills, surface);
  lastIndex = { skills, surface, text };
  return text;
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
