import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { detectIsolation } from "../../src/sandbox/isolation.ts";
import type { ExecRequest, ExecResult, Sandbox } from "../../src/sandbox/types.ts";
import { makeTree, type Tree } from "./_tree.ts";

// Whether this machine can run the bubblewrap half; without bwrap only those assertions are skipped.
const hasBwrap = detectIsolation({ platform: process.platform, which: (c) => Bun.which(c) }).isolation === "bubblewrap";
// bwrap puts a private tmpfs on /tmp, so trees that must stay visible inside it live elsewhere.
const visibleBase = existsSync("/var/tmp") ? "/var/tmp" : undefined;

async function run(sandbox: Sandbox, t: Tree, command: string | string[], extra: Partial<ExecRequest> = {}) {
  const result = await sandbox.exec({
    command,
    cwd: t.workspace,
    caller: t.operator,
    timeoutMs: 10_000,
    maxOutputBytes: 64 * 1024,
    ...extra,
  });
  if ("ok" in result) throw new Error(`denied: ${result.reason}`);
  return result;
}

const PF_EXITING = 0x4;

/**
 * Whether `pid` still runs. process.kill(pid, 0) alone is not enough: this container's init does not reap
 * orphans, so a killed process lingers as a zombie; and a process whose pipes just closed is already in
 * exit (PF_EXITING) a moment before it turns zombie.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, , , , , , flags] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return state !== "Z" && state !== "X" && (Number(flags) & PF_EXITING) === 0;
  } catch {
    return process.platform !== "linux";
  }
}

/** Live processes whose command line contains `marker` (for pids we cannot see from inside a pid namespace). */
function processesWith(marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker) && alive(Number(pid));
      } catch {
        return false;
      }
    })
    .map(Number);
}

const savedKey = process.env.OPENAI_API_KEY;
afterEach(() => {
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = savedKey;
});

const ALLOWED_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "PWD", "SHLVL", "_", "OLDPWD", "EXTRA"];

function envNames(result: ExecResult): string[] {
  return result.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => line.slice(0, line.indexOf("=")));
}

describe("exec without isolation", () => {
  test("the liveness probe used below sees a running process and a killed one", () => {
    const child = Bun.spawn(["sleep", "1000"]);
    expect(alive(child.pid)).toBe(true);
    child.kill("SIGKILL");
    return child.exited.then(() => expect(alive(child.pid)).toBe(false));
  });

  test("the child gets the minimal environment, never the parent's provider keys", async () => {
    using t = makeTree();
    process.env.OPENAI_API_KEY = "sk-parent-secret";
    const result = await run(t.sandbox("standard"), t, "env", { env: { EXTRA: "given on purpose" } });
    expect(result.isolation).toBe("none");
    expect(result.stdout).not.toContain("sk-parent-secret");
    for (const name of envNames(result)) expect(ALLOWED_ENV).toContain(name);
    expect(result.stdout).toContain(`HOME=${t.home}\n`);
    expect(result.stdout).toContain("LC_ALL=C.UTF-8\n");
    expect(result.stdout).toContain("TERM=dumb\n");
    expect(result.stdout).toContain("EXTRA=given on purpose\n");
  });

  test("a timeout kills the whole process group", async () => {
    using t = makeTree();
    const result = await run(t.sandbox("strict"), t, "sleep 1000 & echo $!; sleep 1000 & echo $!; wait", {
      timeoutMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    const pids = result.stdout.trim().split("\n").map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  test("background jobs do not outlive their command (and do not hold the call open)", async () => {
    using t = makeTree();
    const result = await run(t.sandbox("strict"), t, "sleep 1000 & echo $!");
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(alive(Number(result.stdout.trim()))).toBe(false);
  });

  test("an abort signal kills the group, whether it comes before the start or during the run", async () => {
    using t = makeTree();
    const sandbox = t.sandbox("strict");
    const early = new AbortController();
    early.abort();
    expect(await run(sandbox, t, "echo never", { signal: early.signal })).toMatchObject({ exitCode: null, stdout: "" });
    const during = await run(sandbox, t, "sleep 1000 & echo $!; wait", { signal: AbortSignal.timeout(300) });
    expect(during).toMatchObject({ exitCode: null, timedOut: false });
    expect(alive(Number(during.stdout.trim()))).toBe(false);
  });

  test("output is capped per stream and marked truncated", async () => {
    using t = makeTree();
    const result = await run(
      t.sandbox("strict"),
      t,
      "head -c 100000 /dev/zero | tr '\\0' a; head -c 5000 /dev/zero | tr '\\0' b >&2",
      {
        maxOutputBytes: 1000,
      },
    );
    expect(result.stdout).toBe("a".repeat(1000));
    expect(result.stderr).toBe("b".repeat(1000));
    expect(result.truncated).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  test("stdin, exit codes, argv form and a missing program", async () => {
    using t = makeTree();
    const sandbox = t.sandbox("strict");
    expect((await run(sandbox, t, "tr a-z A-Z", { stdin: "hello" })).stdout).toBe("HELLO");
    expect((await run(sandbox, t, "exit 7")).exitCode).toBe(7);
    expect((await run(sandbox, t, ["printf", "%s|", "a b", "c"])).stdout).toBe("a b|c|");
    const missing = await run(sandbox, t, ["/nonexistent/program"]);
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toContain("/nonexistent/program");
    expect((await run(sandbox, t, "pwd")).stdout.trim()).toBe(t.workspace);
  });

  test("the cwd must pass the path check and be a directory", async () => {
    using t = makeTree();
    const sandbox = t.sandbox("open");
    const exec = (cwd: string) =>
      sandbox.exec({ command: "true", cwd, caller: t.operator, timeoutMs: 1000, maxOutputBytes: 10 });
    expect(await exec(t.outside)).toMatchObject({ ok: false, code: "outside_roots" });
    expect(await exec(join(t.home, ".ssh"))).toMatchObject({ ok: false, code: "protected" });
    expect(await exec(join(t.workspace, "plain.txt"))).toMatchObject({ ok: false, code: "invalid" });
    expect(await exec(join(t.workspace, "missing"))).toMatchObject({ ok: false, code: "not_found" });
  });

  test("status and explain say there is no isolation, and why", async () => {
    using t = makeTree();
    expect(t.sandbox("standard").status().isolation).toBe("none");
    const broken = t.sandbox("standard", { which: () => "/nonexistent/bwrap", platform: "linux" });
    expect(broken.status().isolation).toBe("none");
    expect(await broken.explain("plain.txt", t.operator)).toContain("/nonexistent/bwrap failed its self-test");
  });
});

describe.skipIf(!hasBwrap)("exec inside bubblewrap", () => {
  const bwrapSandbox = (t: Tree, mode: "strict" | "standard" | "open") =>
    t.sandbox(mode, { which: (c) => Bun.which(c) });

  test("status reports bubblewrap and results carry it", async () => {
    using t = makeTree(visibleBase);
    const sandbox = bwrapSandbox(t, "strict");
    expect(sandbox.status().isolation).toBe("bubblewrap");
    expect((await run(sandbox, t, "true")).isolation).toBe("bubblewrap");
  });

  test("the minimal environment holds inside the jail too", async () => {
    using t = makeTree(visibleBase);
    process.env.OPENAI_API_KEY = "sk-parent-secret";
    const result = await run(bwrapSandbox(t, "standard"), t, "env");
    expect(result.stdout).not.toContain("sk-parent-secret");
    for (const name of envNames(result)) expect(ALLOWED_ENV).toContain(name);
  });

  test("writes outside the roots fail; writes in the roots land", async () => {
    using t = makeTree(visibleBase);
    const result = await run(
      bwrapSandbox(t, "standard"),
      t,
      `echo x > ${t.outside}/new.txt; echo y >> ${t.outside}/secret.txt; echo w > ${t.workspace}/w.txt; echo p > ${t.project}/p.txt; echo g > ${t.granted}/g.txt`,
    );
    expect(result.stderr).toContain("Read-only file system");
    expect(readdirSync(t.outside)).toEqual(["secret.txt"]);
    expect(readFileSync(join(t.outside, "secret.txt"), "utf8")).toBe("outside secret");
    expect(readFileSync(join(t.workspace, "w.txt"), "utf8")).toBe("w\n");
    expect(readFileSync(join(t.project, "p.txt"), "utf8")).toBe("p\n");
    expect(readFileSync(join(t.granted, "g.txt"), "utf8")).toBe("g\n");
  });

  test("protected files inside a root (the home, in open mode) cannot be read or written", async () => {
    using t = makeTree(visibleBase);
    const result = await run(
      bwrapSandbox(t, "open"),
      t,
      [
        `cat ${t.home}/.ssh/id_rsa`,
        `cat ${t.home}/.aws/credentials`,
        `cat ${t.home}/.docker/config.json`,
        `cat ${t.fermixHome}/config.toml`,
        `echo key >> ${t.home}/.ssh/authorized_keys`,
        `mkdir ${t.home}/.kube`,
        `echo ok >> ${t.home}/.docker/daemon.json`,
        `echo ok >> ${t.home}/notes.txt`,
      ].join("; "),
    );
    expect(result.stdout).toBe("");
    expect(result.stdout + result.stderr).not.toContain("PRIVATE KEY");
    expect(result.stdout + result.stderr).not.toContain("aws_secret_access_key");
    expect(existsSync(join(t.home, ".ssh", "authorized_keys"))).toBe(false);
    expect(existsSync(join(t.home, ".kube"))).toBe(false);
    expect(readFileSync(join(t.home, ".docker", "daemon.json"), "utf8")).toBe("{}ok\n");
    expect(readFileSync(join(t.home, "notes.txt"), "utf8")).toBe("notesok\n");
  });

  test("a granted root that does not exist yet does not break the jail", async () => {
    using t = makeTree(visibleBase);
    const sandbox = t.sandbox("strict", {
      which: (c) => Bun.which(c),
      config: { mode: "strict", allowed_roots: [t.granted, join(t.root, "not-yet")] },
    });
    expect((await run(sandbox, t, "echo fine")).stdout).toBe("fine\n");
  });

  test("a timeout kills everything the command started inside the jail", async () => {
    using t = makeTree(visibleBase);
    const marker = `1000.${process.pid}${Date.now() % 100000}`;
    const result = await run(bwrapSandbox(t, "strict"), t, `sleep ${marker} & sleep ${marker} & wait`, {
      timeoutMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(processesWith(marker)).toEqual([]);
  });
});
