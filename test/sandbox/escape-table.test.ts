import { describe, expect, test } from "bun:test";
import { existsSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Denial, ExecResult, Sandbox } from "../../src/sandbox/types.ts";
import { MODES, makeTree, snapshot, type Tree } from "./_tree.ts";

/**
 * Ways out of the sandbox, each tried in every mode by a local operator (the caller with the most
 * roots). Every one must be refused with a reason a person can act on, and leave the whole fake machine
 * — the outside directory, the credentials, fermix's own files — exactly as it was.
 */
type Outcome = { ok: boolean } | Denial;
type Attempt = {
  name: string;
  setup?: (t: Tree) => void;
  run: (t: Tree, sandbox: Sandbox) => Promise<Outcome> | Outcome;
  /** The canonical path the reason must name. */
  names?: (t: Tree) => string;
  /** Paths that must still not exist afterwards (beyond the snapshot, e.g. outside the tree). */
  absent?: (t: Tree) => string[];
};

const climb = (t: Tree, rest: string) => `${"../".repeat(40)}${join(t.outside, rest).slice(1)}`;
const read = (sb: Sandbox, t: Tree, path: string) => sb.readFile(path, t.operator, 1024);
const write = (sb: Sandbox, t: Tree, path: string) => sb.writeFile(path, "pwned", t.operator);
/** A command that ran at all counts as an escape; only a Denial passes. */
const ran = async (result: Promise<ExecResult | Denial>): Promise<Outcome> => {
  const outcome = await result;
  return "ok" in outcome ? outcome : { ok: true };
};
const shell = (sb: Sandbox, t: Tree, command: string, cwd = t.workspace) =>
  ran(sb.exec({ command, cwd, caller: t.operator, timeoutMs: 5000, maxOutputBytes: 1024 }));
const escapeName = `fx-escape-${process.pid}-${Date.now()}.txt`;

const ATTEMPTS: Attempt[] = [
  {
    name: "../ climb to read outside",
    run: (t, sb) => read(sb, t, climb(t, "secret.txt")),
    names: (t) => join(t.outside, "secret.txt"),
  },
  {
    name: "../ climb to write outside",
    run: (t, sb) => write(sb, t, climb(t, "new.txt")),
    names: (t) => join(t.outside, "new.txt"),
  },
  {
    name: "absolute path outside, read",
    run: (t, sb) => read(sb, t, join(t.outside, "secret.txt")),
    names: (t) => join(t.outside, "secret.txt"),
  },
  {
    name: "absolute path outside, overwrite",
    run: (t, sb) => write(sb, t, join(t.outside, "secret.txt")),
    names: (t) => join(t.outside, "secret.txt"),
  },
  {
    name: "absolute path outside, new file in a new dir",
    run: (t, sb) => write(sb, t, join(t.outside, "d", "e", "f.txt")),
  },
  {
    name: "prefix trick: granted-evil next to granted",
    run: (t, sb) => write(sb, t, join(t.root, "granted-evil", "x.txt")),
    names: (t) => join(t.root, "granted-evil", "x.txt"),
  },
  {
    name: "prefix trick: home-evil next to home",
    run: (t, sb) => write(sb, t, join(t.root, "home-evil", "x.txt")),
    names: (t) => join(t.root, "home-evil", "x.txt"),
  },
  {
    name: "symlinked middle directory pointing outside, read",
    setup: (t) => symlinkSync(t.outside, join(t.workspace, "linkdir")),
    run: (t, sb) => read(sb, t, join(t.workspace, "linkdir", "secret.txt")),
    names: (t) => join(t.outside, "secret.txt"),
  },
  {
    name: "symlinked middle directory pointing outside, write",
    setup: (t) => symlinkSync(t.outside, join(t.workspace, "linkdir")),
    run: (t, sb) => write(sb, t, join(t.workspace, "linkdir", "new.txt")),
    names: (t) => join(t.outside, "new.txt"),
  },
  {
    name: "symlink leaf pointing outside, read",
    setup: (t) => symlinkSync(join(t.outside, "secret.txt"), join(t.workspace, "leaf")),
    run: (t, sb) => read(sb, t, join(t.workspace, "leaf")),
    names: (t) => join(t.workspace, "leaf"),
  },
  {
    name: "symlink leaf pointing outside, write",
    setup: (t) => symlinkSync(join(t.outside, "secret.txt"), join(t.workspace, "leaf")),
    run: (t, sb) => write(sb, t, join(t.workspace, "leaf")),
    names: (t) => join(t.outside, "secret.txt"),
  },
  {
    name: "dangling symlink leaf pointing outside, write must not create the target",
    setup: (t) => symlinkSync(join(t.outside, "created.txt"), join(t.workspace, "dangling")),
    run: (t, sb) => write(sb, t, join(t.workspace, "dangling")),
    names: (t) => join(t.outside, "created.txt"),
  },
  {
    name: "hard link to an outside file, write",
    setup: (t) => linkSync(join(t.outside, "secret.txt"), join(t.workspace, "hard")),
    run: (t, sb) => write(sb, t, join(t.workspace, "hard")),
    names: (t) => join(t.workspace, "hard"),
  },
  {
    name: "/proc/self/root/... to an outside file",
    run: (t, sb) => read(sb, t, `/proc/self/root${t.outside}/secret.txt`),
    names: (t) => join(t.outside, "secret.txt"),
  },
  {
    name: "/proc/self/root/etc/passwd",
    run: (t, sb) => read(sb, t, "/proc/self/root/etc/passwd"),
    names: () => "/etc/passwd",
  },
  {
    name: "/proc/self/cwd/.. write",
    run: (t, sb) => write(sb, t, `/proc/self/cwd/../${escapeName}`),
    absent: () => [join(dirname(process.cwd()), escapeName)],
  },
  {
    name: "case variant .SSH/id_rsa",
    run: (t, sb) => read(sb, t, "~/.SSH/id_rsa"),
    names: (t) => join(t.home, ".SSH", "id_rsa"),
  },
  { name: "case variant .Aws/credentials", run: (t, sb) => read(sb, t, join(t.home, ".Aws", "credentials")) },
  {
    name: "~/.ssh/id_rsa, read",
    run: (t, sb) => read(sb, t, "~/.ssh/id_rsa"),
    names: (t) => join(t.home, ".ssh", "id_rsa"),
  },
  { name: "~/.ssh/authorized_keys, write", run: (t, sb) => write(sb, t, "~/.ssh/authorized_keys") },
  { name: "~/.docker/config.json, read", run: (t, sb) => read(sb, t, join(t.home, ".docker", "config.json")) },
  {
    name: "a credential directory that is itself a link (~/.gnupg -> ~/dotfiles/gnupg)",
    setup: (t) => {
      mkdirSync(join(t.home, "dotfiles", "gnupg"), { recursive: true });
      writeFileSync(join(t.home, "dotfiles", "gnupg", "secring.gpg"), "GPG");
      symlinkSync(join(t.home, "dotfiles", "gnupg"), join(t.home, ".gnupg"));
    },
    run: (t, sb) => read(sb, t, "~/.gnupg/secring.gpg"),
    names: (t) => join(t.home, ".gnupg"),
  },
  {
    name: "a link inside a root pointing at ~/.ssh/id_rsa",
    setup: (t) => symlinkSync(join(t.home, ".ssh", "id_rsa"), join(t.workspace, "key")),
    run: (t, sb) => read(sb, t, join(t.workspace, "key")),
    names: (t) => join(t.home, ".ssh", "id_rsa"),
  },
  {
    name: "FERMIX_HOME/config.toml, read",
    run: (t, sb) => read(sb, t, join(t.fermixHome, "config.toml")),
    names: (t) => join(t.fermixHome, "config.toml"),
  },
  {
    name: "FERMIX_HOME/memory.db, write",
    run: (t, sb) => write(sb, t, join(t.fermixHome, "memory.db")),
    names: (t) => join(t.fermixHome, "memory.db"),
  },
  {
    name: "FERMIX_HOME/workspace/../auth.json, write",
    run: (t, sb) => write(sb, t, join(t.workspace, "..", "auth.json")),
    names: (t) => join(t.fermixHome, "auth.json"),
  },
  { name: "/etc/passwd, read", run: (t, sb) => read(sb, t, "/etc/passwd"), names: () => "/etc/passwd" },
  { name: "/etc/shadow, read", run: (t, sb) => read(sb, t, "/etc/shadow"), names: () => "/etc/shadow" },
  { name: "a null byte in a path, read", run: (t, sb) => read(sb, t, `${t.workspace}/plain.txt\0/../../../outside`) },
  { name: "a null byte in a path, write", run: (t, sb) => write(sb, t, `${t.workspace}/x\0${t.outside}/secret.txt`) },
  {
    name: "shell with a cwd outside the roots",
    run: (t, sb) => shell(sb, t, "echo x > y", t.outside),
    names: (t) => t.outside,
  },
  { name: "shell: rm -rf /", run: (t, sb) => shell(sb, t, "rm -rf /") },
  { name: "shell: rm -rf ~ (the fake home)", run: (t, sb) => shell(sb, t, "rm -rf ~") },
  { name: "shell: fork bomb", run: (t, sb) => shell(sb, t, ":(){ :|:& };:") },
  { name: "shell: mkfs", run: (t, sb) => shell(sb, t, "mkfs.ext4 /dev/sda1") },
  {
    name: "checkCommand: rm -fr /* hidden in sh -c",
    run: (_t, sb) => sb.checkCommand(["sh", "-c", "cd /tmp && rm -fr /*"]),
  },
  { name: "grant the home itself", run: (t, sb) => sb.isGrantable(t.home), names: (t) => t.home },
  { name: "grant the parent of the home", run: (t, sb) => sb.isGrantable(dirname(t.home)) },
  { name: "grant ~/.ssh", run: (t, sb) => sb.isGrantable(join(t.home, ".ssh")) },
  { name: "grant FERMIX_HOME", run: (t, sb) => sb.isGrantable(t.fermixHome) },
  { name: "grant /", run: (_t, sb) => sb.isGrantable("/") },
];

describe("escape table", () => {
  test("has at least 25 attempts", () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(25);
  });

  for (const attempt of ATTEMPTS) {
    for (const mode of MODES) {
      test(`${mode}: ${attempt.name}`, async () => {
        using t = makeTree();
        attempt.setup?.(t);
        const sandbox = t.sandbox(mode);
        await sandbox.checkPath(t.workspace, "read", t.operator); // the workspace exists before the "before" picture
        const before = snapshot(t.root);
        const outcome = await attempt.run(t, sandbox);
        expect(outcome.ok).toBe(false);
        const denial = outcome as Denial;
        expect(denial.reason.length).toBeGreaterThan(20);
        if (attempt.names) expect(denial.reason).toContain(attempt.names(t));
        expect(snapshot(t.root)).toEqual(before);
        for (const path of attempt.absent?.(t) ?? []) expect(existsSync(path)).toBe(false);
      });
    }
  }
});

/**
 * The other half of the table: what must keep working. The cwd column is the interesting one — only a
 * local operator in standard mode gets the cwd as such; open mode reaches it through the home, for
 * operators only.
 */
const CWD_WRITABLE: Record<string, Record<"operator" | "remoteOperator" | "guest", boolean>> = {
  strict: { operator: false, remoteOperator: false, guest: false },
  standard: { operator: true, remoteOperator: false, guest: false },
  open: { operator: true, remoteOperator: true, guest: false },
};

describe("positive controls", () => {
  for (const mode of MODES) {
    for (const who of ["operator", "remoteOperator", "guest"] as const) {
      test(`${mode}, ${who}: the workspace is readable and writable; the cwd ${CWD_WRITABLE[mode]![who] ? "is" : "is not"}`, async () => {
        using t = makeTree();
        const sandbox = t.sandbox(mode);
        const caller = t[who];
        const read = await sandbox.readFile(join(t.workspace, "plain.txt"), caller, 100);
        expect(read.ok && new TextDecoder().decode(read.bytes)).toBe("plain");
        const out = join(t.workspace, "out.txt");
        expect(await sandbox.writeFile(out, "written", caller)).toEqual({ ok: true, path: out });
        const inCwd = join(t.project, "notes.md");
        const written = await sandbox.writeFile(inCwd, "here", caller);
        if (CWD_WRITABLE[mode]![who]) {
          expect(written).toEqual({ ok: true, path: inCwd });
        } else {
          expect(written).toMatchObject({ ok: false, code: "outside_roots" });
          expect(existsSync(inCwd)).toBe(false);
        }
      });
    }
  }
});
