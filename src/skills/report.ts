import type { SkillReloadReport } from "../protocol/schemas.ts";
import type { Skill, SkillLoadError, SkillReload } from "./catalog.ts";

/** How a skill is shown in a list: where it comes from, what it may use, when to use it. */
export function renderSkillLine(skill: Skill): string {
  return `- ${skill.name} [${sourceLabel(skill)}; ${toolsLabel(skill)}] ${skill.description}`;
}

export function sourceLabel(skill: Skill): string {
  if (skill.overrides) return "home, overrides bundled";
  if (skill.source === "plugin") return skill.plugin ? `plugin ${skill.plugin}` : "plugin";
  return skill.source;
}

function toolsLabel(skill: Skill): string {
  if (!skill.allowedTools) return skill.trust === "guest" ? "guest tools" : "all your tools";
  return skill.allowedTools.length ? `tools: ${skill.allowedTools.join(", ")}` : "no tools";
}

/** The reason already names the field when there is one (`description: expected …`). */
export function renderLoadError(error: SkillLoadError): string {
  return `${error.file}: ${error.reason}`;
}

export function reloadReport(reload: SkillReload): SkillReloadReport {
  const { added, removed, changed, errors } = reload;
  return { total: reload.skills.length, added, removed, changed, errors };
}

/** What a reload changed, for skill_reload and `fermix skills reload`. */
export function renderReload(reload: SkillReloadReport): string {
  const list = (names: string[]) => (names.length ? names.join(", ") : "none");
  const lines = [
    `Skills reloaded: ${reload.total} loaded.`,
    `added: ${list(reload.added)}`,
    `removed: ${list(reload.removed)}`,
    `changed: ${list(reload.changed)}`,
  ];
  if (reload.errors.length)
    lines.push(`errors (${reload.errors.length}, skipped):`, ...reload.errors.map((e) => `- ${renderLoadError(e)}`));
  return lines.join("\n");
}
