import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createSkillCatalog, SkillFileNotFound, SkillNotFound } from "../../src/skills/catalog.ts";
import { MAX_SKILL_FILE_BYTES, type SkillFolder } from "../../src/skills/sources.ts";
import { writeHomeSkill } from "../../src/skills/write.ts";
import { fakeEmbedded, skillText, tempSkillsDir } from "./_fixture.ts";

const bundled = () =>
  fakeEmbedded({
    "catalog/README.md": "not a skill",
    "skills/README.md": "a loose file, not a skill",
    "skills/guide/SKILL.md": skillText("guide", "Use for the guide.", "allowed_tools: []\n"),
    "skills/guide/plugins.md": "# Plugins\nbeing built",
    "skills/guide/reference/api.md": "# API",
    "skills/other/SKILL.md": skillText("other"),
  });

function pluginFolder(name: string, text = skillText(name)): SkillFolder {
  return {
    name,
    source: "plugin",
    plugin: "acme",
    location: `plugin acme/skills/${name}`,
    files: ["SKILL.md"],
    read: async () => text,
  };
}

describe("loading", () => {
  test("bundled skills load from the embedded files at operator trust, with their reference files", async () => {
    await using home = tempSkillsDir();
    const { skills, errors } = await createSkillCatalog({ embedded: bundled(), homeSkillsDir: home.dir }).load();
    expect(errors).toEqual([]);
    expect(skills.map((s) => [s.name, s.source, s.trust])).toEqual([
      ["guide", "bundled", "operator"],
      ["other", "bundled", "operator"],
    ]);
    const guide = skills[0]!;
    expect(guide.file).toBe("skills/guide/SKILL.md");
    expect(guide.references).toEqual(["plugins.md", "reference/api.md"]);
    expect(guide.allowedTools).toEqual([]);
  });

  test("a home skill loads, and one named like a bundled skill takes its place", async () => {
    await using home = tempSkillsDir();
    home.write("mine/SKILL.md", skillText("mine"));
    home.write("guide/SKILL.md", skillText("guide", "My own guide."));
    const { skills } = await createSkillCatalog({ embedded: bundled(), homeSkillsDir: home.dir }).load();
    const byName = Object.fromEntries(skills.map((s) => [s.name, s]));
    expect(byName.mine!.source).toBe("home");
    expect(byName.guide!.source).toBe("home");
    expect(byName.guide!.overrides).toBe("bundled");
    expect(byName.guide!.description).toBe("My own guide.");
    expect(byName.guide!.file).toBe(join(home.dir, "guide", "SKILL.md"));
  });

  test("a broken SKILL.md is reported with its file and reason and skipped; the others still load", async () => {
    await using home = tempSkillsDir();
    home.write("good/SKILL.md", skillText("good"));
    const broken = home.write("broken/SKILL.md", "---\nname: broken\n---\nbody\n");
    home.write("empty/notes.md", "no SKILL.md here");
    home.write("cased/skill.md", skillText("cased"));
    const { skills, errors } = await createSkillCatalog({ embedded: bundled(), homeSkillsDir: home.dir }).load();
    expect(skills.map((s) => s.name)).toEqual(["good", "guide", "other"]);
    expect(errors).toEqual(
      [
        { file: broken, field: "description", reason: expect.stringContaining("description: missing") },
        { file: join(home.dir, "cased", "SKILL.md"), reason: expect.stringContaining("found skill.md") },
        { file: join(home.dir, "empty", "SKILL.md"), reason: "the folder has no SKILL.md" },
      ].sort((a, b) => a.file.localeCompare(b.file)),
    );
  });

  test("a broken home override keeps the bundled skill, and the error says so", async () => {
    await using home = tempSkillsDir();
    home.write("guide/SKILL.md", "---\nname: guide\ndescription: d\nsurprise: 1\n---\nbody\n");
    const { skills, errors } = await createSkillCatalog({ embedded: bundled(), homeSkillsDir: home.dir }).load();
    expect(skills.find((s) => s.name === "guide")!.source).toBe("bundled");
    expect(errors[0]!.reason).toContain('unknown field "surprise"');
    expect(errors[0]!.reason).toContain("the bundled skill of that name is used instead");
  });

  test("no skills folder at all is simply no home skills; an oversized file is refused", async () => {
    await using home = tempSkillsDir();
    const catalog = createSkillCatalog({ embedded: bundled(), homeSkillsDir: join(home.dir, "missing") });
    expect((await catalog.load()).errors).toEqual([]);
    home.write("huge/SKILL.md", skillText("huge", "d", "", "x".repeat(MAX_SKILL_FILE_BYTES)));
    const { errors } = await createSkillCatalog({ embedded: bundled(), homeSkillsDir: home.dir }).load();
    expect(errors[0]!.reason).toContain("a skill file may have at most");
  });

  test("plugin skills load at guest trust and can never take a name the owner's skills use", async () => {
    await using home = tempSkillsDir();
    home.write("mine/SKILL.md", skillText("mine"));
    const catalog = createSkillCatalog({
      embedded: bundled(),
      homeSkillsDir: home.dir,
      pluginSkills: () => [pluginFolder("helper"), pluginFolder("guide"), pluginFolder("mine")],
    });
    const { skills, errors } = await catalog.load();
    const helper = skills.find((s) => s.name === "helper")!;
    expect([helper.source, helper.trust, helper.plugin]).toEqual(["plugin", "guest", "acme"]);
    expect(skills.find((s) => s.name === "guide")!.source).toBe("bundled");
    expect(errors.map((e) => e.reason)).toEqual([
      expect.stringContaining("already used by a bundled skill"),
      expect.stringContaining("already used by a home skill"),
    ]);
  });

  test("a plugin source that fails is an error, not the end of loading", async () => {
    await using home = tempSkillsDir();
    const catalog = createSkillCatalog({
      embedded: bundled(),
      homeSkillsDir: home.dir,
      pluginSkills: () => {
        throw new Error("plugin store locked");
      },
    });
    const { skills, errors } = await catalog.load();
    expect(skills).toHaveLength(2);
    expect(errors[0]!.reason).toContain("plugin store locked");
  });
});

describe("view", () => {
  test("gives the body, or a reference file by its path, its name or its name without .md", async () => {
    await using home = tempSkillsDir();
    const catalog = createSkillCatalog({ embedded: bundled(), homeSkillsDir: home.dir });
    expect((await catalog.view("guide")).text).toBe("# guide\nDo it.");
    for (const name of ["plugins", "plugins.md", "./plugins.md"]) {
      expect(await catalog.view("guide", name)).toMatchObject({ file: "plugins.md", text: "# Plugins\nbeing built" });
    }
    for (const name of ["reference/api.md", "reference/api", "api"]) {
      expect((await catalog.view("guide", name)).text).toBe("# API");
    }
  });

  test("refuses anything that is not one of the skill's own files", async () => {
    await using home = tempSkillsDir();
    home.write("mine/SKILL.md", skillText("mine"));
    home.write("secret.md", "outside any skill");
    const catalog = createSkillCatalog({ embedded: bundled(), homeSkillsDir: home.dir });
    for (const file of ["../secret.md", "../secret", "/etc/passwd", "../../config.toml", "../guide/plugins.md"]) {
      const err = await catalog.view("mine", file).catch((e) => e);
      expect(SkillFileNotFound.is(err)).toBe(true);
      expect(err.message).toContain(`has no file "${file}"`);
    }
    expect(SkillNotFound.is(await catalog.view("nope").catch((e) => e))).toBe(true);
  });
});

describe("reload", () => {
  test("load() keeps the last scan; reload() rescans and says what was added, removed and changed", async () => {
    await using home = tempSkillsDir();
    home.write("keep/SKILL.md", skillText("keep"));
    home.write("edit/SKILL.md", skillText("edit"));
    home.write("drop/SKILL.md", skillText("drop"));
    const catalog = createSkillCatalog({ embedded: bundled(), homeSkillsDir: home.dir });
    await catalog.load();

    home.write("fresh/SKILL.md", skillText("fresh"));
    home.write("edit/SKILL.md", skillText("edit", "Edited."));
    home.remove("drop");
    home.write("bad/SKILL.md", "no front matter");
    expect((await catalog.load()).skills.map((s) => s.name)).toContain("drop");

    const diff = await catalog.reload();
    expect([diff.added, diff.removed, diff.changed]).toEqual([["fresh"], ["drop"], ["edit"]]);
    expect(diff.errors.map((e) => e.file)).toEqual([join(home.dir, "bad", "SKILL.md")]);
    expect(catalog.current().skills.map((s) => s.name)).toEqual(["edit", "fresh", "guide", "keep", "other"]);
  });

  test("a new reference file counts as a change; an edited one is read fresh without a reload", async () => {
    await using home = tempSkillsDir();
    home.write("mine/SKILL.md", skillText("mine"));
    home.write("mine/notes.md", "first");
    const catalog = createSkillCatalog({ embedded: bundled(), homeSkillsDir: home.dir });
    expect((await catalog.view("mine", "notes")).text).toBe("first");
    home.write("mine/notes.md", "second");
    expect((await catalog.view("mine", "notes")).text).toBe("second");
    home.write("mine/more.md", "more");
    expect((await catalog.reload()).changed).toEqual(["mine"]);
  });

  test("current() is empty before the first scan", () => {
    const catalog = createSkillCatalog({ embedded: bundled(), homeSkillsDir: "/nonexistent" });
    expect(catalog.current()).toEqual({ skills: [], errors: [] });
  });
});

describe("writeHomeSkill", () => {
  test("writes SKILL.md atomically, leaves no temp file and replaces an old one", async () => {
    await using home = tempSkillsDir();
    const doc = { name: "mine", description: "Mine: all of it.", allowedTools: ["file_read"], body: "# Mine" };
    const { file } = writeHomeSkill(home.dir, doc);
    writeHomeSkill(home.dir, { ...doc, body: "# Mine, again" });
    expect(readdirSync(join(home.dir, "mine"))).toEqual(["SKILL.md"]);
    expect(await Bun.file(file).text()).toBe(
      "---\nname: mine\ndescription: Mine: all of it.\nallowed_tools: [file_read]\n---\n\n# Mine, again\n",
    );
  });

  test("refuses what the catalog would refuse, before touching the disk", async () => {
    await using home = tempSkillsDir();
    expect(() => writeHomeSkill(home.dir, { name: "Bad Name", description: "d", body: "b" })).toThrow("name");
    expect(() => readdirSync(home.dir)).toThrow();
  });
});
