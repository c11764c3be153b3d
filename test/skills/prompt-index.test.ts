import { expect, test } from "bun:test";
import { SKILL_TOOLS } from "../../src/capabilities/builtins/skill-tools.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import { createSkillCatalog } from "../../src/skills/catalog.ts";
import { skillsIndex } from "../../src/skills/prompt-index.ts";
import { fakeEmbedded, skillText } from "./_fixture.ts";

const catalog = createSkillCatalog({
  embedded: fakeEmbedded({
    "skills/guide/SKILL.md": skillText("guide", "Use for the guide.", "", "# Guide\nTHE BODY"),
    "skills/notes/SKILL.md": skillText("notes", '"Use for notes,\\n on two lines."'),
  }),
  homeSkillsDir: "/nonexistent",
});
const registry = createRegistry([...SKILL_TOOLS]);

test("the prompt's skills section has names and descriptions only, never a body", async () => {
  const { skills } = await catalog.load();
  const owner = registry.surface({ trust: "operator", local: true, attended: true });
  expect(skillsIndex(skills, owner)).toBe(
    [
      "## Skills",
      "- guide: Use for the guide.",
      "- notes: Use for notes, on two lines.",
      "Read a skill with skill_view (and its reference files with `file`) before following it.",
      "skill_run hands a self-contained task to a skill, which runs it as a sub-agent.",
    ].join("\n"),
  );
});

test("a caller without the skill tools (a guest) gets no skills section, and neither does an empty catalog", async () => {
  const { skills } = await catalog.load();
  const guest = registry.surface({ trust: "guest", local: false, attended: true });
  expect(guest).toEqual([]);
  expect(skillsIndex(skills, guest)).toBe("");
  expect(skillsIndex([], registry.all())).toBe("");
});
