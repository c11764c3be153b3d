import { renderLoadError, renderSkillLine } from "../../skills/report.ts";
import { defineSlashCommand } from "./command.ts";

export const skillsCommand = defineSlashCommand({
  name: "skills",
  access: "owner_only",
  usage: "/skills",
  summary: "list the skills fermix can use",
  async run({ ctx }) {
    if (!ctx.skills) return "Skills are not available here.";
    const { skills, errors } = await ctx.skills.load();
    const lines = skills.length
      ? [`Skills (${skills.length}):`, ...[...skills].sort((a, b) => a.name.localeCompare(b.name)).map(renderSkillLine)]
      : ["No skills are installed."];
    for (const error of errors) lines.push(`could not load ${renderLoadError(error)}`);
    return lines.join("\n");
  },
});
