import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCommand } from "../fixture/cli.ts";

/*
 * Every function of src/runtime/ run under Bun and under Deno (_parity-probe.ts, one JSON object each) and
 * held to the values below: what both return, and where they differ, what each returns and why.
 */

const ROOT = resolve(import.meta.dirname, "..", "..");
const PROBE = join(ROOT, "test", "runtime", "_parity-probe.ts");
const DENO = join(ROOT, "node_modules", "deno", "deno");
// Deno's cache of transpiled modules, never the user's ~/.cache/deno.
const DENO_DIR = mkdtempSync(join(tmpdir(), "fx-deno-"));
afterAll(() => rmSync(DENO_DIR, { recursive: true, force: true }));

type Results = Record<string, unknown>;

/** The probe under one runtime, in a scratch directory of its own that is also its HOME. */
async function probe(runtime: string[]): Promise<Results> {
  const dir = mkdtempSync(join(tmpdir(), "fx-parity-"));
  try {
    const env = { PATH: "/usr/bin:/bin", HOME: dir, DENO_DIR, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" };
    const run = await runCommand([...runtime, PROBE, dir], { env, cwd: ROOT });
    if (run.code !== 0 || run.stderr) throw new Error(`${runtime[0]} probe exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let onBun: Results;
let onDeno: Results;
beforeAll(
  async () => {
    [onBun, onDeno] = await Promise.all([
      probe([process.execPath]),
      // --cached-only: the probe imports nothing remote, and this makes sure no import reaches the network.
      probe([DENO, "run", "--allow-all", "--quiet", "--no-prompt", "--cached-only"]),
    ]);
  },
  { timeout: 120_000 },
);

/** What both runtimes return ($DIR is the probe's scratch directory). */
function both(): Results {
  const ran = (kind: string, input: string) => ({ exitCode: 0, stdout: { kind, input }, stderr: "to stderr" });
  const exchange = {
    get: "GET /hello?x=1",
    post: { status: 201, method: "POST", type: "text/plain", body: "payload" },
    stream: "one,two,three",
  };
  return {
    runtime: "(per runtime)",
    isCompiledBinary: false,
    sleep: true,
    files: {
      readText: "héllo\nworld\n",
      readBytes: { type: "[object Uint8Array]", length: 13 },
      readStream: "héllo\nworld\n",
      readStreamBig: 300_000,
      readTextMissing: { threw: "async", code: "ENOENT" },
      fileExists: { file: true, dir: false, missing: false },
      fileSizeSync: { file: 13, missing: 0 },
      stdio: {
        devNull: ran("character", ""),
        pipe: ran("pipe", "piped in"),
        spawnSyncInput: ran("(per runtime)", "given"),
        file: { kind: "file", input: "héllo\nworld\n" },
      },
    },
    processes: {
      pipe: { stdout: "out", stderr: "err", code: 0 },
      pipeNotAsked: { stdout: null, stderr: null },
      exit3: 3,
      // 128 + the signal's number, whoever sent it.
      sigterm: 143,
      sigkill: 137,
      killDefault: 143,
      selfSigterm: 143,
      timeout: 143,
      detachedOwnGroup: true,
      attachedInOurGroup: true,
      unref: 0,
      fdOutput: { code: 0, file: "to-out\nto-err\n" },
      cwd: "$DIR\n",
      env: "bar\n",
      spawnMissing: { threw: "sync", code: "ENOENT" },
      spawnNotOnPath: { threw: "sync", code: "ENOENT" },
      spawnMissingCwd: { threw: "sync", code: "ENOENT" },
      spawnNotExecutable: { threw: "sync", code: "EACCES" },
      spawnSyncCat: { exitCode: 0, stdout: "fed to cat", stderr: "" },
      spawnSyncUnpiped: { exitCode: 4, stdout: "", stderr: "" },
      spawnSyncTimeout: { exitCode: null, stdout: "partial\n", stderr: "", quick: true },
      spawnSyncMissing: { threw: "sync", code: "ENOENT" },
      spawnSyncNotExecutable: { threw: "sync", code: "EACCES" },
    },
    which: {
      sh: expect.stringMatching(/^\/(usr\/)?bin\/sh$/),
      onGivenPath: "$DIR/bin/tool",
      notOnGivenPath: null,
      emptyPath: null,
      notExecutable: null,
      absolute: "$DIR/bin/tool",
      absoluteNotExecutable: null,
      directory: null,
      relative: "$DIR/bin/tool",
      dotRelative: "$DIR/bin/tool",
    },
    hash: {
      abc: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      abcBytes: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      empty: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      incremental: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      utf8StringEqualsBytes: true,
      streamedEqualsWhole: true,
    },
    glob: {
      matcher: {
        "**/*.md": { "a.md": true, "docs/b.md": true, "docs/deep/c.md": true, "a.mdx": false, "docs/b.txt": false },
        "*.{ts,js}": { "x.ts": true, "y.js": true, "z.tsx": false, "src/x.ts": false },
        "src/?.ts": { "src/x.ts": true, "src/ab.ts": false, "x.ts": false },
        "[ab]*.md": { "a.md": true, "b.md": true, "c.md": false },
      },
      // A leading dot is an ordinary character to the matcher (unlike to globFiles).
      matcherDot: {
        "**/*.md": { ".dot.md": true, ".hidden/d.md": true },
        "*.{ts,js}": { ".x.ts": true },
        ".*.md": { ".dot.md": true, "a.md": false },
      },
      // Sorted; link.md and linked-dir (symlinks) and the dot entries are never listed.
      files: {
        "**/*.md": ["a.md", "docs/b.md", "docs/deep/c.md"],
        "*": ["a.md", "z.txt"],
        "**": ["a.md", "docs/b.md", "docs/deep/c.md", "src/ab.ts", "src/x.ts", "src/y.js", "z.txt"],
        "src/*.{ts,js}": ["src/ab.ts", "src/x.ts", "src/y.js"],
        "src/?.ts": ["src/x.ts"],
      },
      filesDot: [],
      filesNamingDot: { ".hidden/*.md": [".hidden/d.md"], "**/.e.md": ["docs/.e.md"], ".*.md": [".dot.md"] },
    },
    http: {
      tcp: { portChosen: true, ...exchange, refusedAfterStop: true },
      unix: { port: 0, ...exchange, socketRemovedOnStop: true, refusedAfterStop: true, refusedAfterForcedStop: true },
    },
    sqlite: {
      journalMode: { journal_mode: "wal" },
      insert: { changes: 1, lastInsertRowid: 1 },
      // Booleans are stored as 0/1, a Uint8Array comes back as one.
      row: { id: 1, title: "first", done: 1, data: { type: "[object Uint8Array]", bytes: [1, 2, 255] }, extra: null },
      noRow: null,
      positional: { changes: 1, lastInsertRowid: 2 },
      positionalRow: { title: "second", done: 1, data: null },
      // An UPDATE reports the connection's last insert: the third row of notes_fts.
      update: { changes: 2, lastInsertRowid: 3 },
      statementCached: true,
      otherSqlOtherStatement: true,
      committed: 2,
      failed: "boom",
      innerCaught: "inner boom",
      nested: "outer done",
      immediate: 1,
      busy: "database is locked",
      // Neither "rolled back" nor "inner" nor "never": the outer transaction committed around the inner one.
      rows: ["first", "second", "t1", "t2", "outer before", "outer after", "immediate"],
      constraint: "UNIQUE constraint failed: notes.id",
      fts: ["green", "black"],
      ftsScoresAscending: true,
      missingNamedParam: null,
      beyondSafeInteger: null,
      readonly: { count: { n: 7 }, write: "attempt to write a readonly database" },
      walKeptWithPersistWal: false,
    },
  };
}

/**
 * Where the two legitimately differ: each entry is a path into the results, then what Bun and Deno return
 * there. No caller in src/ relies on either side of these.
 */
const DIFFERENCES: Array<{ path: string[]; bun: unknown; deno: unknown }> = [
  // runtimeName() says which runtime it is.
  { path: ["runtime"], bun: expect.stringMatching(/^bun \d+\.\d+/), deno: expect.stringMatching(/^deno 2\./) },
  // Bun's spawnSync hands stdin text to the child as a memfd, a file; Node's (Deno's) through a pipe.
  { path: ["files", "stdio", "spawnSyncInput", "stdout", "kind"], bun: "file", deno: "pipe" },
  // Deno's node:fs glob skips dot entries whatever `dot` says (glob.ts); a pattern naming the dot finds
  // them on both (filesNamingDot), and that is how glob_search asks.
  {
    path: ["glob", "filesDot"],
    bun: [".dot.md", ".hidden/d.md", "a.md", "docs/.e.md", "docs/b.md", "docs/deep/c.md"],
    deno: ["a.md", "docs/b.md", "docs/deep/c.md"],
  },
  // bun:sqlite's strict mode refuses a statement missing a named parameter; node:sqlite binds NULL. Only
  // a caller's mistake gets here, and Bun (where the tests run) catches it.
  { path: ["sqlite", "missingNamedParam"], bun: 'Missing parameter "b"', deno: null },
  // An INTEGER past 2^53 comes back rounded from bun:sqlite; node:sqlite refuses to round it. memory.db
  // stores nothing that large.
  {
    path: ["sqlite", "beyondSafeInteger"],
    bun: { n: 9007199254740992 },
    deno: "Value is too large to be represented as a JavaScript number: 9007199254740993",
  },
  // persistWal is a file control bun:sqlite has and node:sqlite has not (sqlite.ts).
  { path: ["sqlite", "walKeptWithPersistWal"], bun: true, deno: false },
];

/** `results` with `value` at `path` (a copy where it is replaced). */
function setAt(results: Results, path: string[], value: unknown): Results {
  const [key, ...rest] = path as [string, ...string[]];
  const next = rest.length ? setAt(results[key] as Results, rest, value) : value;
  return { ...results, [key]: next };
}

function expected(runtime: "bun" | "deno"): Results {
  return DIFFERENCES.reduce((out, d) => setAt(out, d.path, d[runtime]), both());
}

/** The results with every documented difference blanked out. */
function comparable(results: Results): Results {
  return DIFFERENCES.reduce((out, d) => setAt(out, d.path, "(differs)"), results);
}

describe("the runtime seam under Bun and Deno", () => {
  test("under Bun, each function returns what it should", () => {
    expect(onBun).toEqual(expected("bun"));
  });

  test("under Deno, each function returns what it should", () => {
    expect(onDeno).toEqual(expected("deno"));
  });

  test("Deno returns what Bun returns, but for the differences listed", () => {
    expect(comparable(onDeno)).toEqual(comparable(onBun));
  });
});
