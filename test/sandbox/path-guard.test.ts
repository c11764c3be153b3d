import { describe, expect, test } from "bun:test";
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox } from "../../src/sandbox/create-sandbox.ts";
import { MODES, makeTree } from "./_tree.ts";

describe("roots by mode and caller", () => {
  for (const mode of MODES) {
    test(`${mode}: a granted root is open to every caller`, async () => {
      using t = makeTree();
      const sandbox = t.sandbox(mode);
      for (const caller of [t.operator, t.remoteOperator, t.guest]) {
        expect((await sandbox.checkPath(join(t.granted, "data.txt"), "write", caller)).ok).toBe(true);
      }
    });
  }

  test("standard: the cwd under the home is a root for a local operator only", async () => {
    using t = makeTree();
    const sandbox = t.sandbox("standard");
    const target = join(t.project, "notes.md");
    expect(await sandbox.writeFile(target, "hi", t.operator)).toEqual({ ok: true, path: target });
    expect(readFileSync(target, "utf8")).toBe("hi");
    for (const caller of [t.guest, t.remoteOperator]) {
      const verdict = await sandbox.checkPath(target, "write", caller);
      expect(verdict).toMatchObject({ ok: false, code: "outside_roots" });
    }
    expect(sandbox.roots(t.operator)).toEqual([t.workspace, t.granted, t.project]);
    expect(sandbox.roots(t.guest)).toEqual([t.workspace, t.granted]);
  });

  test("strict: the cwd is not a root, and the denial says how to grant it", async () => {
    using t = makeTree();
    const verdict = await t.sandbox("strict").checkPath(join(t.project, "README.md"), "write", t.operator);
    expect(verdict).toMatchObject({ ok: false, code: "outside_roots" });
    if (!verdict.ok) {
      expect(verdict.reason).toContain(`${join(t.project, "README.md")} is outside the sandbox roots`);
      expect(verdict.reason).toContain(`workspace ${t.workspace}`);
      expect(verdict.reason).toContain(`fermix grant path ${t.project}`);
    }
  });

  test("standard: a cwd outside the home, or the home itself, is never a root", async () => {
    using t = makeTree();
    const sandbox = t.sandbox("standard");
    expect(sandbox.roots({ ...t.operator, cwd: t.outside })).toEqual([t.workspace, t.granted]);
    expect(sandbox.roots({ ...t.operator, cwd: t.home })).toEqual([t.workspace, t.granted]);
    expect(sandbox.roots({ ...t.operator, cwd: join(t.home, ".ssh") })).toEqual([t.workspace, t.granted]);
  });

  test("open: the whole home for operators, protected paths still denied; guests keep the strict roots", async () => {
    using t = makeTree();
    const sandbox = t.sandbox("open");
    expect((await sandbox.writeFile("~/todo.txt", "x", t.remoteOperator)).ok).toBe(true);
    expect(await sandbox.checkPath("~/.ssh/id_rsa", "read", t.operator)).toMatchObject({ code: "protected" });
    expect(await sandbox.checkPath("~/notes.txt", "read", t.guest)).toMatchObject({ code: "outside_roots" });
  });

  test("blocked_roots are denied even inside a root", async () => {
    using t = makeTree();
    const blocked = join(t.granted, "private");
    mkdirSync(blocked);
    const sandbox = createSandbox({
      userHome: t.home,
      fermixHome: t.fermixHome,
      config: { mode: "open", allowed_roots: [t.granted], blocked_roots: [blocked] },
      which: () => null,
    });
    const verdict = await sandbox.checkPath(join(blocked, "a.txt"), "write", t.operator);
    expect(verdict).toMatchObject({ ok: false, code: "blocked" });
    expect(sandbox.status().blockedRoots).toEqual([blocked]);
  });
});

describe("path resolution", () => {
  test("relative paths resolve against the cwd when it is a root, else the workspace", async () => {
    using t = makeTree();
    const standard = t.sandbox("standard");
    expect(await standard.checkPath("README.md", "read", t.operator)).toEqual({
      ok: true,
      path: join(t.project, "README.md"),
    });
    expect(await t.sandbox("strict").checkPath("plain.txt", "read", t.operator)).toEqual({
      ok: true,
      path: join(t.workspace, "plain.txt"),
    });
  });

  test("a write creates missing parents inside the root", async () => {
    using t = makeTree();
    const path = join(t.workspace, "a", "b", "c.txt");
    expect(await t.sandbox("strict").writeFile(path, "deep", t.operator)).toEqual({ ok: true, path });
    expect(readFileSync(path, "utf8")).toBe("deep");
  });

  test("a write never creates directories above a root that does not exist yet", async () => {
    using t = makeTree();
    const root = join(t.root, "later", "project");
    const sandbox = createSandbox({
      userHome: t.home,
      fermixHome: t.fermixHome,
      config: { allowed_roots: [root] },
      which: () => null,
    });
    expect(await sandbox.writeFile(join(root, "x.txt"), "x", t.operator)).toMatchObject({
      ok: false,
      code: "outside_roots",
    });
    expect(existsSync(join(t.root, "later"))).toBe(false);
    mkdirSync(join(t.root, "later"));
    expect((await sandbox.writeFile(join(root, "x.txt"), "x", t.operator)).ok).toBe(true);
  });

  test("a link inside the roots to a file inside the roots is followed to its target", async () => {
    using t = makeTree();
    symlinkSync(join(t.workspace, "plain.txt"), join(t.workspace, "alias"));
    const sandbox = t.sandbox("strict");
    expect(await sandbox.writeFile(join(t.workspace, "alias"), "via alias", t.operator)).toEqual({
      ok: true,
      path: join(t.workspace, "plain.txt"),
    });
    expect(readFileSync(join(t.workspace, "plain.txt"), "utf8")).toBe("via alias");
  });

  test("hard-linked files may be read but not written", async () => {
    using t = makeTree();
    linkSync(join(t.workspace, "plain.txt"), join(t.workspace, "twin"));
    const sandbox = t.sandbox("strict");
    expect((await sandbox.readFile(join(t.workspace, "twin"), t.operator, 100)).ok).toBe(true);
    expect(await sandbox.writeFile(join(t.workspace, "twin"), "x", t.operator)).toMatchObject({ code: "hardlink" });
    expect(readFileSync(join(t.workspace, "plain.txt"), "utf8")).toBe("plain");
  });

  test("reads are capped and report truncation; missing files are not_found; directories are not files", async () => {
    using t = makeTree();
    writeFileSync(join(t.workspace, "big.txt"), "x".repeat(1000));
    const sandbox = t.sandbox("strict");
    const read = await sandbox.readFile(join(t.workspace, "big.txt"), t.operator, 10);
    expect(read.ok && [read.bytes.length, read.truncated]).toEqual([10, true]);
    const exact = await sandbox.readFile(join(t.workspace, "plain.txt"), t.operator, 5);
    expect(exact.ok && exact.truncated).toBe(false);
    expect(await sandbox.readFile(join(t.workspace, "nope"), t.operator, 10)).toMatchObject({ code: "not_found" });
    expect(await sandbox.readFile(t.workspace, t.operator, 10)).toMatchObject({ code: "invalid" });
  });

  test("a link loop is refused, not followed forever", async () => {
    using t = makeTree();
    symlinkSync(join(t.workspace, "b"), join(t.workspace, "a"));
    symlinkSync(join(t.workspace, "a"), join(t.workspace, "b"));
    const verdict = await t.sandbox("strict").checkPath(join(t.workspace, "a"), "read", t.operator);
    expect(verdict).toMatchObject({ ok: false, code: "invalid" });
  });

  test("the workspace is created 0700 on first use, not before", async () => {
    using t = makeTree();
    const fermixHome = join(t.root, "fresh-fermix");
    const sandbox = createSandbox({ userHome: t.home, fermixHome, config: undefined, which: () => null });
    expect(existsSync(fermixHome)).toBe(false);
    await sandbox.checkPath("x", "write", t.guest);
    expect(statSync(join(fermixHome, "workspace")).mode & 0o777).toBe(0o700);
    expect(sandbox.mode).toBe("standard");
  });
});

describe("explain and status", () => {
  test("explain walks through the judgement", async () => {
    using t = makeTree();
    symlinkSync(join(t.home, ".ssh", "id_rsa"), join(t.project, "key"));
    const text = await t.sandbox("standard").explain("key", t.operator);
    expect(text).toContain(`resolved against ${t.project}`);
    expect(text).toContain(`canonical path: ${join(t.home, ".ssh", "id_rsa")}`);
    expect(text).toContain("read: denied [symlink]");
    expect(text).toContain(`current directory ${t.project}`);
    expect(text).toContain('isolation "none"');
  });

  test("status reports the mode, roots and protected paths", () => {
    using t = makeTree();
    const status = t.sandbox("open").status();
    expect(status).toMatchObject({
      mode: "open",
      isolation: "none",
      workspaceRoot: t.workspace,
      allowedRoots: [t.granted],
    });
    expect(status.protectedPaths).toContain(join(t.home, ".ssh"));
    expect(status.protectedPaths).toContain(t.fermixHome);
    expect(status.protectedPaths).toContain("/etc");
  });
});
