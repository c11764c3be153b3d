import { describe, expect, test } from "bun:test";
import { buildSystemPrompt, type PromptInput } from "../../src/agent/prompt.ts";
import { buildSystemPromptReusing, skillsIndexReusing } from "../../src/agent/prompt-reuse.ts";
import { BUILTIN_TOOLS } from "../../src/capabilities/builtins/registry.ts";
import type { Skill } from "../../src/skills/catalog.ts";

const DAY = Date.parse("2026-11-29T12:00:00Z");
const tools = BUILTIN_TOOLS.slice(0, 4);
const base: PromptInput = {
  agentName: "fermix",
  now: new Date(DAY),
  timezone: "Europe/Berlin",
  cwd: "/srv/one",
  tools,
  deferred: [],
  files: { soul: "Be kind.", user: "Lives in Lyon." },
  skillsIndex: "## Skills\n- one: the first",
  summary: undefined,
  owner: { userName: "Ada" },
};

describe("the system prompt, reused", () => {
  test("the same input gives back the very prompt built before, a later hour of the same day too", () => {
    const first = buildSystemPromptReusing({ ...base, files: { ...base.files } });
    expect(first).toBe(buildSystemPrompt(base));
    expect(buildSystemPromptReusing({ ...base, now: new Date(DAY + 3_600_000), owner: { userName: "Ada" } })).toBe(
      first,
    );
  });

  test("every input that changed reaches the prompt", () => {
    const changes: Array<[Partial<PromptInput>, string]> = [
      [{ now: new Date(DAY + 86_400_000) }, "2026-11-30"],
      [{ cwd: "/srv/two" }, "working in /srv/two"],
      [{ timezone: "Asia/Tokyo" }, "Asia/Tokyo"],
      [{ agentName: "jarvis", files: { soul: "Be kind." } }, "You are jarvis"],
      [{ files: { soul: "Be brief.", user: "Lives in Lyon." } }, "Be brief."],
      [{ files: { soul: "Be kind.", user: "Lives in Lyon.", memory: "Cat: Miso." } }, "Cat: Miso."],
      [{ skillsIndex: "## Skills\n- two: the second" }, "two: the second"],
      [{ summary: "we talked about units" }, "we talked about units"],
      [{ owner: { userName: "Grace" } }, "Grace"],
      [{ owner: { userName: "Ada", communicationStyle: "terse" } }, "terse"],
      [{ tools: BUILTIN_TOOLS.slice(0, 5) }, BUILTIN_TOOLS[4]!.name],
    ];
    for (const [change, expected] of changes) {
      buildSystemPromptReusing(base);
      const prompt = buildSystemPromptReusing({ ...base, ...change });
      expect(prompt).toBe(buildSystemPrompt({ ...base, ...change }));
      expect(prompt).toContain(expected);
    }
  });
});

describe("the skills index, reused", () => {
  const skill = (name: string): Skill => ({ name, description: `The ${name} skill.` }) as Skill;
  const surface = BUILTIN_TOOLS.filter((t) => t.name === "skill_view");

  test("the same skills over the same surface give the same text; another skill or surface, a new one", () => {
    const one = skill("one");
    expect(skillsIndexReusing([one], surface)).toContain("one: The one skill.");
    expect(skillsIndexReusing([one], surface)).toContain("one: The one skill.");
    // A rescan makes new skill objects, even under the same name.
    const rescanned = { ...one, description: "Rewritten." } as Skill;
    expect(skillsIndexReusing([rescanned], surface)).toContain("one: Rewritten.");
    expect(skillsIndexReusing([rescanned, skill("two")], surface)).toContain("two: The two skill.");
    expect(skillsIndexReusing([rescanned], [])).toBe("");
  });
});
