import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createSandbox } from "../../src/sandbox/create-sandbox.ts";
import { makeTree } from "./_tree.ts";

describe("isGrantable", () => {
  test("an ordinary directory under the home or elsewhere is grantable, canonically", async () => {
    using t = makeTree();
    const sandbox = t.sandbox("strict");
    expect(await sandbox.isGrantable(t.project)).toEqual({ ok: true, path: t.project });
    expect(await sandbox.isGrantable(t.outside)).toEqual({ ok: true, path: t.outside });
    symlinkSync(t.project, join(t.home, "app-link"));
    expect(await sandbox.isGrantable("~/app-link")).toEqual({ ok: true, path: t.project });
    expect(await sandbox.isGrantable(`${t.home}/projects/../projects/app/`)).toEqual({ ok: true, path: t.project });
  });

  test.each([
    ["the home", (h: string) => h, "it is your home directory"],
    ["~", () => "~", "it is your home directory"],
    ["the home's parent", (h: string) => dirname(h), "it contains your home directory"],
    ["/", () => "/", "it contains your home directory"],
    ["~/.ssh", (h: string) => join(h, ".ssh"), "holds credentials"],
    ["~/.SSH", (h: string) => join(h, ".SSH"), "holds credentials"],
    ["FERMIX_HOME", (h: string) => join(h, ".fermix"), "fermix's own directory"],
    ["the workspace inside FERMIX_HOME", (h: string) => join(h, ".fermix", "workspace"), "fermix's own directory"],
    ["/etc", () => "/etc", "system location"],
    ["/usr/local", () => "/usr/local", "system location"],
  ])("refuses %s", async (_name, pathOf, why) => {
    using t = makeTree();
    mkdirSync(join(t.home, ".SSH"), { recursive: true });
    const verdict = await t.sandbox("open").isGrantable(pathOf(t.home));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) {
      expect(verdict.code).toBe("protected");
      expect(verdict.reason).toContain("can't be granted");
      expect(verdict.reason).toContain(why);
    }
  });

  test("refuses a link that leads into a protected place, relative paths, files and missing dirs", async () => {
    using t = makeTree();
    symlinkSync(join(t.home, ".aws"), join(t.home, "innocent"));
    writeFileSync(join(t.home, "file.txt"), "");
    const sandbox = t.sandbox("strict");
    expect(await sandbox.isGrantable("~/innocent")).toMatchObject({ ok: false, code: "protected" });
    expect(await sandbox.isGrantable("projects/app")).toMatchObject({ ok: false, code: "invalid" });
    expect(await sandbox.isGrantable("~/file.txt")).toMatchObject({ ok: false, code: "invalid" });
    expect(await sandbox.isGrantable("~/nope")).toMatchObject({ ok: false, code: "not_found" });
    expect(await sandbox.isGrantable("~/a\0b")).toMatchObject({ ok: false, code: "invalid" });
  });

  test("refuses what blocked_roots closes", async () => {
    using t = makeTree();
    const sandbox = createSandbox({
      userHome: t.home,
      fermixHome: t.fermixHome,
      config: { blocked_roots: [t.outside] },
      which: () => null,
    });
    expect(await sandbox.isGrantable(t.outside)).toMatchObject({ ok: false, code: "blocked" });
  });
});

describe("[sandbox] config", () => {
  const make = (t: ReturnType<typeof makeTree>, config: Record<string, unknown>) => () =>
    createSandbox({ userHome: t.home, fermixHome: t.fermixHome, config, which: () => null });

  test("a root that could never be granted fails loudly, naming the file and key", () => {
    using t = makeTree();
    expect(make(t, { allowed_roots: ["~"] })).toThrow(
      `${join(t.fermixHome, "config.toml")}: [sandbox] allowed_roots: "~": ${t.home} can't be granted: it is your home directory`,
    );
    expect(make(t, { allowed_roots: ["/"] })).toThrow("[sandbox] allowed_roots");
    expect(make(t, { allowed_roots: ["projects"] })).toThrow('"projects" is relative');
    expect(make(t, { workspace_root: join(t.home, ".ssh", "ws") })).toThrow("[sandbox] workspace_root");
  });

  test("~ in roots expands to the home; a configured workspace is the first root", async () => {
    using t = makeTree();
    const sandbox = make(t, { workspace_root: "~/ws", allowed_roots: ["~/projects/app"] })();
    expect(sandbox.roots(t.guest)).toEqual([join(t.home, "ws"), t.project]);
    expect(sandbox.status()).toMatchObject({ workspaceRoot: join(t.home, "ws"), allowedRoots: [t.project] });
  });
});
