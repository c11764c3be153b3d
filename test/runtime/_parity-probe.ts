/**
 * Exercises every function of src/runtime/ in a scratch directory and prints one JSON object of what each
 * returned. parity.test.ts runs it under Bun and under Deno and compares the two.
 *   bun test/runtime/_parity-probe.ts <dir>
 *   deno run -A --quiet test/runtime/_parity-probe.ts <dir>
 * With `--stdio` instead of a directory it is its own child: it reports what its stdin is and echoes it.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isCompiledBinary } from "../../src/runtime/binary.ts";
import { descriptorKind, fileExists, fileSizeSync, readBytes, readStream, readText } from "../../src/runtime/files.ts";
import { globFiles, globMatcher } from "../../src/runtime/glob.ts";
import { createSha256, sha256Hex } from "../../src/runtime/hash.ts";
import { deno, onBun, runtimeName } from "../../src/runtime/host.ts";
import { serveHttp, unixFetch } from "../../src/runtime/http.ts";
import {
  type Child,
  type SpawnOptions,
  type SpawnSyncResult,
  sleep,
  spawn,
  spawnSync,
  which,
} from "../../src/runtime/processes.ts";
import { openSqlite } from "../../src/runtime/sqlite.ts";
import { stdinStream, writeStderr, writeStdout } from "../../src/runtime/stdio.ts";

const SELF = fileURLToPath(import.meta.url);
const text = (stream: ReadableStream<Uint8Array> | null) => new Response(stream).text();

/** This script again, under the runtime running it now. */
function selfArgv(...args: string[]): string[] {
  return onBun
    ? [process.execPath, SELF, ...args]
    : [deno().execPath(), "run", "-A", "--quiet", "--cached-only", SELF, ...args];
}

/** Runs a section; a throw is reported in its place rather than losing every other section's result. */
async function section(run: () => unknown): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    return { threw: String(err) };
  }
}

/** What a call threw: `sync` when it threw before returning, as Bun.spawn does. */
async function thrown(run: () => unknown): Promise<{ threw: false } | { threw: "sync" | "async"; code: unknown }> {
  let pending: unknown;
  try {
    pending = run();
  } catch (err) {
    return { threw: "sync", code: (err as NodeJS.ErrnoException).code };
  }
  try {
    await pending;
    return { threw: false };
  } catch (err) {
    return { threw: "async", code: (err as NodeJS.ErrnoException).code };
  }
}

async function files(dir: string) {
  const path = join(dir, "file.txt");
  writeFileSync(path, "héllo\nworld\n");
  // Large enough to arrive in several chunks.
  const big = join(dir, "big.bin");
  writeFileSync(big, new Uint8Array(300_000).fill(7));
  const bytes = await readBytes(path);
  const stdinIs = (stdin: SpawnOptions["stdin"]) => spawn(selfArgv("--stdio"), { stdin, stdout: "pipe" });
  const fromFile = openSync(path, "r");
  let fileChild: Child;
  try {
    fileChild = stdinIs(fromFile);
  } finally {
    closeSync(fromFile);
  }
  return {
    readText: await readText(path),
    readBytes: { type: Object.prototype.toString.call(bytes), length: bytes.length },
    readStream: await text(readStream(path)),
    readStreamBig: (await new Response(readStream(big)).bytes()).length,
    readTextMissing: await thrown(() => readText(join(dir, "missing"))),
    fileExists: {
      file: await fileExists(path),
      dir: await fileExists(dir),
      missing: await fileExists(join(dir, "missing")),
    },
    fileSizeSync: { file: fileSizeSync(path), missing: fileSizeSync(join(dir, "missing")) },
    // The child reports descriptorKind(0) and what stdinStream gave it; stderr goes through writeStderr.
    stdio: {
      devNull: stdioChildRan(spawnSync(selfArgv("--stdio"), { stdout: "pipe", stderr: "pipe" })),
      pipe: stdioChildRan(
        spawnSync(["sh", "-c", 'printf "piped in" | "$@"', "sh", ...selfArgv("--stdio")], {
          stdout: "pipe",
          stderr: "pipe",
        }),
      ),
      spawnSyncInput: stdioChildRan(spawnSync(selfArgv("--stdio"), { stdin: "given", stdout: "pipe", stderr: "pipe" })),
      file: JSON.parse(await text(fileChild.stdout)),
    },
  };
}

async function processes(dir: string) {
  const pgid = (pid: number) => spawnSync(["ps", "-o", "pgid=", "-p", String(pid)], { stdout: "pipe" }).stdout.trim();
  const piped = spawn(["sh", "-c", "printf out; printf err >&2"], { stdout: "pipe", stderr: "pipe" });
  const exit3 = spawn(["sh", "-c", "exit 3"]);
  const term = spawn(["sleep", "30"]);
  term.kill("SIGTERM");
  const kill = spawn(["sleep", "30"]);
  kill.kill("SIGKILL");
  const byDefault = spawn(["sleep", "30"]);
  byDefault.kill();
  const detached = spawn(["sleep", "30"], { detached: true });
  const attached = spawn(["sleep", "30"]);
  const groups = { ours: pgid(process.pid), detached: pgid(detached.pid), attached: pgid(attached.pid) };
  detached.kill("SIGKILL");
  attached.kill("SIGKILL");
  await Promise.all([detached.exited, attached.exited]);
  const unrefd = spawn(["true"]);
  unrefd.unref();
  const out = openSync(join(dir, "child.out"), "w");
  let toFile: Child;
  try {
    toFile = spawn(["sh", "-c", "echo to-out; echo to-err >&2"], { stdout: out, stderr: out });
  } finally {
    closeSync(out);
  }
  writeFileSync(join(dir, "noexec"), "#!/bin/sh\n", { mode: 0o644 });
  const startedAt = Date.now();
  const timedOutSync = spawnSync(["sh", "-c", "echo partial; exec sleep 30"], { stdout: "pipe", timeout: 1000 });
  return {
    pipe: { stdout: await text(piped.stdout), stderr: await text(piped.stderr), code: await piped.exited },
    pipeNotAsked: { stdout: exit3.stdout, stderr: exit3.stderr },
    exit3: await exit3.exited,
    sigterm: await term.exited,
    sigkill: await kill.exited,
    killDefault: await byDefault.exited,
    selfSigterm: await spawn(["sh", "-c", "kill -TERM $$"]).exited,
    timeout: await spawn(["sleep", "30"], { timeout: 100 }).exited,
    detachedOwnGroup: groups.detached === String(detached.pid),
    attachedInOurGroup: groups.attached === groups.ours,
    unref: await unrefd.exited,
    fdOutput: { code: await toFile.exited, file: readFileSync(join(dir, "child.out"), "utf8") },
    cwd: await text(spawn(["pwd"], { cwd: dir, stdout: "pipe" }).stdout),
    // printenv prints FOO's value, and an empty line too if DROP (undefined: left out) were set.
    env: await text(
      spawn(["printenv", "FOO", "DROP"], { env: { FOO: "bar", DROP: undefined }, stdout: "pipe" }).stdout,
    ),
    spawnMissing: await thrown(() => spawn([join(dir, "missing")]).exited),
    spawnNotOnPath: await thrown(() => spawn(["fermix-no-such-command"]).exited),
    spawnMissingCwd: await thrown(() => spawn(["true"], { cwd: join(dir, "missing") }).exited),
    spawnNotExecutable: await thrown(() => spawn([join(dir, "noexec")]).exited),
    spawnSyncCat: spawnSync(["cat"], { stdin: "fed to cat", stdout: "pipe", stderr: "pipe" }),
    spawnSyncUnpiped: spawnSync(["sh", "-c", "echo not captured; exit 4"]),
    spawnSyncTimeout: { ...timedOutSync, quick: Date.now() - startedAt < 10_000 },
    spawnSyncMissing: await thrown(() => spawnSync([join(dir, "missing")])),
    spawnSyncNotExecutable: await thrown(() => spawnSync([join(dir, "noexec")])),
  };
}

function whichCases(dir: string) {
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "tool"), "#!/bin/sh\n", { mode: 0o755 });
  writeFileSync(join(bin, "plain"), "", { mode: 0o644 });
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    return {
      sh: which("sh"),
      onGivenPath: which("tool", { PATH: bin }),
      notOnGivenPath: which("sh", { PATH: join(dir, "empty") }),
      emptyPath: which("sh", { PATH: "" }),
      notExecutable: which("plain", { PATH: bin }),
      absolute: which(join(bin, "tool")),
      absoluteNotExecutable: which(join(bin, "plain")),
      directory: which(bin),
      relative: which("bin/tool"),
      dotRelative: which("./bin/tool"),
    };
  } finally {
    process.chdir(cwd);
  }
}

async function hashes(dir: string) {
  const big = join(dir, "big.bin");
  const streamed = createSha256();
  for await (const chunk of readStream(big)) streamed.update(chunk);
  const utf8 = new TextEncoder().encode("héllo");
  return {
    abc: sha256Hex("abc"),
    abcBytes: sha256Hex(new TextEncoder().encode("abc")),
    empty: sha256Hex(""),
    incremental: createSha256().update("a").update(new TextEncoder().encode("b")).update("c").digestHex(),
    utf8StringEqualsBytes: sha256Hex("héllo") === sha256Hex(utf8),
    streamedEqualsWhole: streamed.digestHex() === sha256Hex(await readBytes(big)),
  };
}

async function globs(dir: string) {
  const root = join(dir, "tree");
  for (const sub of ["docs/deep", ".hidden", "src"]) mkdirSync(join(root, sub), { recursive: true });
  for (const file of ["a.md", "docs/b.md", "docs/deep/c.md", "src/x.ts", "src/y.js", "src/ab.ts", "z.txt"]) {
    writeFileSync(join(root, file), file);
  }
  for (const file of [".dot.md", ".hidden/d.md", "docs/.e.md"]) writeFileSync(join(root, file), file);
  symlinkSync("a.md", join(root, "link.md"));
  symlinkSync("docs", join(root, "linked-dir"));
  const scan = async (pattern: string, dot: boolean) => {
    const found: string[] = [];
    for await (const rel of globFiles(pattern, { cwd: root, dot })) found.push(rel);
    return found.sort();
  };
  const matches = (pattern: string, paths: string[]) => {
    const match = globMatcher(pattern);
    return Object.fromEntries(paths.map((p) => [p, match(p)]));
  };
  return {
    matcher: {
      "**/*.md": matches("**/*.md", ["a.md", "docs/b.md", "docs/deep/c.md", "a.mdx", "docs/b.txt"]),
      "*.{ts,js}": matches("*.{ts,js}", ["x.ts", "y.js", "z.tsx", "src/x.ts"]),
      "src/?.ts": matches("src/?.ts", ["src/x.ts", "src/ab.ts", "x.ts"]),
      "[ab]*.md": matches("[ab]*.md", ["a.md", "b.md", "c.md"]),
    },
    matcherDot: {
      "**/*.md": matches("**/*.md", [".dot.md", ".hidden/d.md"]),
      "*.{ts,js}": matches("*.{ts,js}", [".x.ts"]),
      ".*.md": matches(".*.md", [".dot.md", "a.md"]),
    },
    files: {
      "**/*.md": await scan("**/*.md", false),
      "*": await scan("*", false),
      "**": await scan("**", false),
      "src/*.{ts,js}": await scan("src/*.{ts,js}", false),
      "src/?.ts": await scan("src/?.ts", false),
    },
    filesDot: await scan("**/*.md", true),
    // How glob_search asks for dot files: a pattern that names them, with `dot`.
    filesNamingDot: {
      ".hidden/*.md": await scan(".hidden/*.md", true),
      "**/.e.md": await scan("**/.e.md", true),
      ".*.md": await scan(".*.md", true),
    },
  };
}

async function http(dir: string) {
  const handler = async (request: Request) => {
    const url = new URL(request.url);
    if (url.pathname === "/echo") {
      return new Response(await request.text(), {
        status: 201,
        headers: { "x-method": request.method, "content-type": request.headers.get("content-type") ?? "" },
      });
    }
    if (url.pathname === "/stream") {
      const encode = (s: string) => new TextEncoder().encode(s);
      return new Response(
        new ReadableStream({
          start(controller) {
            for (const part of ["one,", "two,", "three"]) controller.enqueue(encode(part));
            controller.close();
          },
        }),
      );
    }
    return new Response(`${request.method} ${url.pathname}${url.search}`);
  };
  const exchange = async (call: (path: string, init?: RequestInit) => Promise<Response>) => {
    const echo = await call("/echo", { method: "POST", body: "payload", headers: { "content-type": "text/plain" } });
    return {
      get: await (await call("/hello?x=1")).text(),
      post: {
        status: echo.status,
        method: echo.headers.get("x-method"),
        type: echo.headers.get("content-type"),
        body: await echo.text(),
      },
      stream: await (await call("/stream")).text(),
    };
  };
  const refused = async (call: () => Promise<Response>) => {
    try {
      await (await call()).text();
      return false;
    } catch {
      return true;
    }
  };

  const tcp = serveHttp({ hostname: "127.0.0.1", port: 0 }, handler);
  const base = `http://127.0.0.1:${tcp.port}`;
  const overTcp = await exchange((path, init) => fetch(base + path, init));
  await tcp.stop();
  const tcpRefused = await refused(() => fetch(`${base}/hello`));

  const socket = join(dir, "http.sock");
  const unix = serveHttp({ unix: socket }, handler);
  const viaSocket = unixFetch(socket);
  const overUnix = await exchange((path, init) => viaSocket(`http://fermix${path}`, init));
  await unix.stop();
  const socketRemoved = !existsSync(socket);
  const unixRefused = await refused(() => viaSocket("http://fermix/hello"));
  const forced = serveHttp({ unix: socket }, handler);
  await forced.stop(true);
  return {
    tcp: { portChosen: tcp.port > 0, ...overTcp, refusedAfterStop: tcpRefused },
    unix: {
      port: unix.port,
      ...overUnix,
      socketRemovedOnStop: socketRemoved,
      refusedAfterStop: unixRefused,
      refusedAfterForcedStop: await refused(() => unixFetch(socket)("http://fermix/hello")),
    },
  };
}

function sqlite(dir: string) {
  const path = join(dir, "memory.db");
  const db = openSqlite(path);
  const journal = db.query("PRAGMA journal_mode=WAL").get();
  db.exec(`
    CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER, data BLOB, extra TEXT);
    CREATE VIRTUAL TABLE notes_fts USING fts5(title, body);
  `);
  const insertSql = "INSERT INTO notes(title, done, data, extra) VALUES ($title, $done, $data, $extra)";
  const insert = (title: string) => db.query(insertSql).run({ title, done: false, data: null, extra: null });
  const titles = () =>
    db
      .query<{ title: string }>("SELECT title FROM notes ORDER BY id")
      .all()
      .map((r) => r.title);
  const error = (run: () => unknown) => {
    try {
      run();
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  };

  const first = db
    .query(insertSql)
    .run({ title: "first", done: true, data: new Uint8Array([1, 2, 255]), extra: null, unused: "x" });
  const row = db.query<Record<string, unknown>>("SELECT * FROM notes WHERE id = $id").get({ id: 1 })!;
  const blob = row.data as Uint8Array;
  const positional = db.run("INSERT INTO notes(title, done) VALUES (?, ?)", ["second", true]);

  const commit = db.transaction((...names: string[]) => {
    for (const name of names) insert(name);
    return names.length;
  });
  const committed = commit("t1", "t2");
  const failing = db.transaction(() => {
    insert("rolled back");
    throw new Error("boom");
  });
  const failed = error(() => failing());
  let innerCaught: string | null = null;
  const inner = db.transaction(() => {
    insert("inner");
    throw new Error("inner boom");
  });
  const outer = db.transaction(() => {
    insert("outer before");
    innerCaught = error(() => inner());
    insert("outer after");
    return "outer done";
  });
  const nested = outer();
  const immediate = db.transaction((title: string) => insert(title).changes).immediate("immediate");

  const other = openSqlite(path);
  other.exec("BEGIN IMMEDIATE");
  const busy = error(() => db.transaction(() => insert("never")).immediate());
  other.exec("ROLLBACK");
  other.close();

  const fts = db.query("INSERT INTO notes_fts(title, body) VALUES ($title, $body)");
  fts.run({ title: "green", body: "sencha is a green tea; tea tea tea" });
  fts.run({ title: "black", body: "assam is a black tea drunk with milk and sugar and lemon" });
  fts.run({ title: "coffee", body: "espresso" });
  const ranked = db
    .query<{ title: string; score: number }>(
      "SELECT title, bm25(notes_fts) AS score FROM notes_fts WHERE notes_fts MATCH $q ORDER BY bm25(notes_fts)",
    )
    .all({ q: "tea" });

  const cached = db.query(insertSql);
  const result = {
    journalMode: journal,
    insert: first,
    row: { ...row, data: { type: Object.prototype.toString.call(blob), bytes: Array.from(blob) } },
    noRow: db.query("SELECT * FROM notes WHERE id = $id").get({ id: 999 }),
    positional,
    positionalRow: db.query("SELECT title, done, data FROM notes WHERE id = ?").get(2),
    update: db.query("UPDATE notes SET extra = $extra WHERE done = $done").run({ extra: "x", done: true }),
    statementCached: cached === db.query(insertSql),
    otherSqlOtherStatement: db.query(insertSql) !== db.query(`${insertSql} `),
    committed,
    failed,
    innerCaught,
    nested,
    immediate,
    busy,
    rows: titles(),
    constraint: error(() => db.query("INSERT INTO notes(id, title) VALUES (1, 'dup')").run()),
    fts: ranked.map((r) => r.title),
    ftsScoresAscending: ranked.every((r, i) => i === 0 || r.score >= ranked[i - 1]!.score),
    // Where the two differ (parity.test.ts says why).
    missingNamedParam: error(() => {
      db.exec("CREATE TABLE pairs(a, b)");
      db.query("INSERT INTO pairs VALUES ($a, $b)").run({ a: 1 });
    }),
    beyondSafeInteger: (() => {
      db.exec("CREATE TABLE big(n INTEGER)");
      db.query("INSERT INTO big VALUES ($n)").run({ n: 2n ** 53n + 1n });
      return error(() => db.query("SELECT n FROM big").get()) ?? db.query("SELECT n FROM big").get();
    })(),
  };
  db.close();
  const reader = openSqlite(path, { readonly: true });
  const readonly = {
    count: reader.query("SELECT count(*) AS n FROM notes").get(),
    write: error(() => reader.exec("DELETE FROM notes")),
  };
  reader.close();
  const persisted = openSqlite(path, { persistWal: true });
  persisted.query("SELECT 1").get();
  persisted.close();
  return { ...result, readonly, walKeptWithPersistWal: existsSync(`${path}-wal`) };
}

function stdioChildRan(result: SpawnSyncResult) {
  return { ...result, stdout: JSON.parse(result.stdout) };
}

async function stdioChild() {
  const kind = await descriptorKind(0);
  const input = await text(stdinStream());
  await writeStderr("to stderr");
  await writeStdout(JSON.stringify({ kind, input }));
}

async function probe(dir: string) {
  const startedAt = Date.now();
  await sleep(20);
  const slept = Date.now() - startedAt;
  const results = {
    runtime: runtimeName(),
    isCompiledBinary: isCompiledBinary(),
    sleep: slept >= 15,
    files: await section(() => files(dir)),
    processes: await section(() => processes(dir)),
    which: await section(() => whichCases(dir)),
    hash: await section(() => hashes(dir)),
    glob: await section(() => globs(dir)),
    http: await section(() => http(dir)),
    sqlite: await section(() => sqlite(dir)),
  };
  // The two runtimes run in different scratch directories: name it alike in both.
  const real = realpathSync(dir);
  const json = JSON.stringify(results, (_key, value) =>
    typeof value === "string" ? value.replaceAll(real, "$DIR").replaceAll(dir, "$DIR") : value,
  );
  await writeStdout(`${json}\n`);
}

const arg = process.argv.at(-1)!;
await (arg === "--stdio" ? stdioChild() : probe(arg));
