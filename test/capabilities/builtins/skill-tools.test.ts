import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_TOOLS } from "../../../src/capabilities/builtins/registry.ts";
import { MAX_SKILL_DEPTH, SKILL_TOOLS } from "../../../src/capabilities/builtins/skill-tools.ts";
import type { Caller } from "../../../src/capabilities/caller.ts";
import { createRegistry } from "../../../src/capabilities/registry.ts";
import type { Delegation, SkillDelegation, ToolContext } from "../../../src/capabilities/tool.ts";
import { createSkillCatalog, type SkillCatalog } from "../../../src/skills/catalog.ts";
import type { SkillFolder } from "../../../src/skills/sources.ts";
import { fakeEmbedded, skillText, tempSkillsDir } from "../../skills/_fixture.ts";

const operator: Caller = { trust: "operator", local: true, attended: true };
// Deduplicated by name, so this holds whether or not BUILTIN_TOOLS already includes the skill tools.
const registry = createRegistry([...new Map([...BUILTIN_TOOLS, ...SKILL_TOOLS].map((t) => [t.name, t])).values()]);

function catalogIn(dir: string, plugins: SkillFolder[] = []): SkillCatalog {
  return createSkillCatalog({
    embedded: fakeEmbedded({
      "skills/guide/SKILL.md": skillText("guide", "Use for the guide.", "allowed_tools: [file_read, skill_view]\n"),
      "skills/guide/plugins.md": "# Plugins\nbeing built",
      "skills/quiet/SKILL.md": skillText("quiet", "Use when tools are not needed.", "allowed_tools: []\n"),
      "skills/open/SKILL.md": skillText("open", "Use with every tool."),
    }),
    homeSkillsDir: dir,
    pluginSkills: () => plugins,
  });
}

function context(extra: Partial<ToolContext> = {}, caller: Caller = operator): ToolContext {
  const surface = registry.surface(caller);
  return {
    caller,
    conversation: { channel: "cli", chat: "t" },
    signal: new AbortController().signal,
    now: Date.now,
    surface: () => surface,
    ...extra,
  } as unknown as ToolContext;
}

async function call(name: string, args: Record<string, unknown>, ctx: ToolContext) {
  return registry.dispatch({ type: "tool_call", id: `c_${name}`, name, arguments: args }, ctx);
}

/** A delegate that records what it was handed and answers like a sub-agent. */
function recordingDelegate(answer = { ok: true, text: "done by the skill" }) {
  const tasks: SkillDelegation[] = [];
  const delegate = async (task: SkillDelegation) => {
    tasks.push(task);
    return answer;
  };
  return { tasks, delegate };
}

describe("skill tools", () => {
  test("say so clearly when no catalog is wired", async () => {
    for (const [name, args] of [
      ["skill_list", {}],
      ["skill_view", { name: "guide" }],
      ["skill_run", { name: "guide", input: "x" }],
      ["skill_create", { name: "x", description: "d", body: "b" }],
      ["skill_reload", {}],
    ] as const) {
      expect(await call(name, args, context())).toMatchObject({
        isError: true,
        content: expect.stringContaining("not available"),
      });
    }
  });

  test("are the owner's: a guest's surface has none of them", () => {
    const guest = registry.surface({ trust: "guest", local: false, attended: true }).map((t) => t.name);
    for (const tool of SKILL_TOOLS) expect(guest).not.toContain(tool.name);
  });

  test("skill_list lists each skill with its source and tools, then load errors", async () => {
    await using home = tempSkillsDir();
    home.write("guide/SKILL.md", skillText("guide", "My guide."));
    home.write("broken/SKILL.md", "nothing here");
    const result = await call("skill_list", {}, context({ skills: catalogIn(home.dir) }));
    expect(result.content).toBe(
      [
        "- guide [home, overrides bundled; all your tools] My guide.",
        "- open [bundled; all your tools] Use with every tool.",
        "- quiet [bundled; no tools] Use when tools are not needed.",
        "",
        "Skills that failed to load:",
        `- ${join(home.dir, "broken", "SKILL.md")}: it must start with a \`---\` line, then the front matter, then another \`---\` line`,
      ].join("\n"),
    );
  });

  test("skill_view gives the body with the names of its reference files, or one reference file", async () => {
    await using home = tempSkillsDir();
    const ctx = context({ skills: catalogIn(home.dir) });
    const body = await call("skill_view", { name: "guide" }, ctx);
    expect(body.content).toBe("# guide\nDo it.\n\n---\nReference files (skill_view with file): plugins");
    expect((await call("skill_view", { name: "guide", file: "plugins" }, ctx)).content).toBe("# Plugins\nbeing built");
    const outside = await call("skill_view", { name: "guide", file: "../../../etc/passwd" }, ctx);
    expect(outside).toMatchObject({
      isError: true,
      content: 'skill "guide" has no file "../../../etc/passwd" (its files: plugins.md)',
    });
    expect(await call("skill_view", { name: "nope" }, ctx)).toMatchObject({ isError: true });
  });
});

describe("skill_run", () => {
  test("hands the skill's body and the task to a sub-agent, one level deeper, with the skill's tools", async () => {
    await using home = tempSkillsDir();
    const { tasks, delegate } = recordingDelegate();
    const result = await call(
      "skill_run",
      { name: "guide", input: "summarise X" },
      context({ skills: catalogIn(home.dir), delegate }),
    );
    expect(result).toMatchObject({ content: "done by the skill" });
    expect(result.isError).toBeFalsy();
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.input).toBe("summarise X");
    expect(tasks[0]!.depth).toBe(1);
    expect(tasks[0]!.allowedTools).toEqual(["file_read", "skill_view"]);
    expect(tasks[0]!.instructions).toContain('You are running the skill "guide": Use for the guide.');
    expect(tasks[0]!.instructions).toContain("# guide\nDo it.");
    expect(tasks[0]!.instructions).toContain("plugins.md");
  });

  test("allowed_tools: [] gives no tools; no allowed_tools gives the caller's own tools", async () => {
    await using home = tempSkillsDir();
    const { tasks, delegate } = recordingDelegate();
    const ctx = context({ skills: catalogIn(home.dir), delegate });
    await call("skill_run", { name: "quiet", input: "x" }, ctx);
    await call("skill_run", { name: "open", input: "x" }, ctx);
    expect(tasks[0]!.allowedTools).toEqual([]);
    expect(tasks[1]!.allowedTools).toEqual(ctx.surface().map((t) => t.name));
  });

  test("a skill never gets a tool its caller lacks, and a plugin skill gets only what a guest may use", async () => {
    await using home = tempSkillsDir();
    const plugin: SkillFolder = {
      name: "helper",
      source: "plugin",
      location: "plugin acme/skills/helper",
      files: ["SKILL.md"],
      read: async () => skillText("helper", "A plugin's skill.", "allowed_tools: [shell, tool_help]\n"),
    };
    const { tasks, delegate } = recordingDelegate();
    const narrow = registry.all().filter((t) => t.name !== "file_read");
    const ctx = { ...context({ skills: catalogIn(home.dir, [plugin]), delegate }), surface: () => narrow };
    await call("skill_run", { name: "guide", input: "x" }, ctx);
    await call("skill_run", { name: "helper", input: "x" }, ctx);
    expect(tasks[0]!.allowedTools).toEqual(["skill_view"]);
    expect(tasks[1]!.allowedTools).toEqual(["tool_help"]);
  });

  test(`stops at ${MAX_SKILL_DEPTH} levels of nesting`, async () => {
    await using home = tempSkillsDir();
    const { tasks, delegate } = recordingDelegate();
    const skills = catalogIn(home.dir);
    await call(
      "skill_run",
      { name: "open", input: "x" },
      context({ skills, delegate, skillDepth: MAX_SKILL_DEPTH - 1 }),
    );
    expect(tasks.map((t) => t.depth)).toEqual([MAX_SKILL_DEPTH]);
    const refused = await call(
      "skill_run",
      { name: "open", input: "x" },
      context({ skills, delegate, skillDepth: MAX_SKILL_DEPTH }),
    );
    expect(refused).toMatchObject({
      isError: true,
      content: expect.stringContaining(`the limit is ${MAX_SKILL_DEPTH}`),
    });
    expect(tasks).toHaveLength(1);
  });

  test("runs through the subagent runner when no delegate is given, carrying the depth on the parent context", async () => {
    await using home = tempSkillsDir();
    const seen: { depth?: number; instructions?: string; allowedTools?: readonly string[]; task: string }[] = [];
    const delegation: Delegation = {
      run: async (tasks, parent) => {
        for (const t of tasks) seen.push({ depth: parent.skillDepth, ...t });
        return [{ ok: false, text: "the model was unreachable" }];
      },
    };
    const result = await call(
      "skill_run",
      { name: "quiet", input: "go" },
      context({ skills: catalogIn(home.dir), delegation, skillDepth: 2 }),
    );
    expect(result).toMatchObject({ isError: true, content: "skill quiet failed: the model was unreachable" });
    expect(seen).toEqual([
      { depth: 3, task: "go", instructions: expect.stringContaining("# quiet"), allowedTools: [] },
    ]);
  });

  test("is an error result when sub-agents are not wired, or the skill does not exist", async () => {
    await using home = tempSkillsDir();
    const skills = catalogIn(home.dir);
    expect(await call("skill_run", { name: "open", input: "x" }, context({ skills }))).toMatchObject({
      isError: true,
      content: expect.stringContaining("Sub-agents are not available"),
    });
    const { delegate } = recordingDelegate();
    expect(await call("skill_run", { name: "nope", input: "x" }, context({ skills, delegate }))).toMatchObject({
      isError: true,
      content: expect.stringContaining('no skill named "nope"'),
    });
  });
});

describe("skill_create and skill_reload", () => {
  test("skill_create writes a home skill that is available at once", async () => {
    await using home = tempSkillsDir();
    const skills = catalogIn(home.dir);
    const ctx = context({ skills });
    const args = {
      name: "standup",
      description: "Use for the daily standup.",
      body: "# Standup\nList yesterday.",
      allowed_tools: ["git_read"],
    };
    const created = await call("skill_create", args, ctx);
    expect(created.content).toBe(
      `Created skill standup (${join(home.dir, "standup", "SKILL.md")}); it is available now.`,
    );
    expect(readFileSync(join(home.dir, "standup", "SKILL.md"), "utf8")).toContain("allowed_tools: [git_read]");
    expect((await skills.view("standup")).text).toBe("# Standup\nList yesterday.");

    expect(await call("skill_create", args, ctx)).toMatchObject({
      isError: true,
      content: expect.stringContaining("overwrite: true"),
    });
    const replaced = await call("skill_create", { ...args, body: "# Standup v2", overwrite: true }, ctx);
    expect(replaced.content).toStartWith("Replaced skill standup");
    expect((await skills.view("standup")).text).toBe("# Standup v2");
  });

  test("skill_create refuses a bundled name, a broken file's place without overwrite, and bad arguments", async () => {
    await using home = tempSkillsDir();
    const ctx = context({ skills: catalogIn(home.dir) });
    const base = { description: "d", body: "b" };
    expect(await call("skill_create", { name: "guide", ...base, overwrite: true }, ctx)).toMatchObject({
      isError: true,
      content: '"guide" is a bundled skill; choose another name.',
    });
    home.write("wreck/SKILL.md", "broken");
    expect(await call("skill_create", { name: "wreck", ...base }, ctx)).toMatchObject({
      isError: true,
      content: expect.stringContaining("overwrite"),
    });
    expect((await call("skill_create", { name: "wreck", ...base, overwrite: true }, ctx)).isError).toBeFalsy();
    for (const bad of [
      { name: "Bad", ...base },
      { name: "ok", description: "x".repeat(301), body: "b" },
      { name: "ok", description: "d", body: "" },
    ]) {
      expect(await call("skill_create", bad, ctx)).toMatchObject({
        isError: true,
        content: expect.stringContaining("Invalid arguments"),
      });
    }
  });

  test("skill_reload reports what was added, removed and changed, and load errors", async () => {
    await using home = tempSkillsDir();
    home.write("old/SKILL.md", skillText("old"));
    const skills = catalogIn(home.dir);
    await skills.load();
    home.remove("old");
    home.write("new/SKILL.md", skillText("new"));
    home.write("bad/SKILL.md", skillText("bad", ""));
    const result = await call("skill_reload", {}, context({ skills }));
    expect(result.content).toBe(
      [
        "Skills reloaded: 4 loaded.",
        "added: new",
        "removed: old",
        "changed: none",
        "errors (1, skipped):",
        `- ${join(home.dir, "bad", "SKILL.md")}: description: expected a sentence saying when to use the skill, got ""`,
      ].join("\n"),
    );
  });
});
