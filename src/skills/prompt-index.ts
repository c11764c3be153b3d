import type { AnyTool } from "../capabilities/tool.ts";
import type { Skill } from "./catalog.ts";

/**
 * The `## Skills` section of the runtime prompt: names and descriptions only, so a turn pays a line per
 * skill and loads a body with skill_view only when it needs one. Empty when the caller cannot use the
 * skill tools (a guest), so a prompt never names what its reader cannot open.
 *
 * @example buildSystemPrompt({ …, skillsIndex: skillsIndex(catalog.current().skills, surface) })
 */
export function skillsIndex(skills: readonly Skill[], surface: readonly AnyTool[]): string {
  const names = new Set(surface.map((t) => t.name));
  const canView = names.has("skill_view");
  const canRun = names.has("skill_run");
  if (!skills.length || (!canView && !canRun)) return "";
  const lines = skills.map((s) => `- ${s.name}: ${oneLine(s.description)}`);
  if (canView) lines.push("Read a skill with skill_view (and its reference files with `file`) before following it.");
  if (canRun) lines.push("skill_run hands a self-contained task to a skill, which runs it as a sub-agent.");
  return `## Skills\n${lines.join("\n")}`;
}

/** Descriptions are one line already (parse.ts caps them at 300 characters); a stray newline must not break the list. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
