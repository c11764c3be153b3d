import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RecordedRequest } from "../test/fake/types.ts";
/**
 * The floors fermix is measured against (issue 31): the cheapest compiled Bun programs that do what a figure
 * does, built in the same run with the project's Bun and the same compile options as build.ts. A millisecond
 * target says nothing across machines (a trivial compiled program starts in 3 ms on one, 30 ms on another);
 * a ratio to these floors does.
 */

/** node_modules/.bin/bun, the Bun build.ts compiles fermix with; the running Bun when it is missing. */
export function projectBun(): string {
  const local = join(import.meta.dir, "..", "node_modules", ".bin", "bun");
  return existsSync(local) ? local : process.execPath;
}

/** Floor (a): prints one line and exits — what `fermix --version` and `fermix ask --help` can at best cost. */
export function buildPrintLineFloor(dir: string): Promise<string> {
  return compileFloor(dir, "print-line", `console.log("floor 0.0.0");\n`);
}

/**
 * Floor (f): floor (a) after writing a byte into each of `pages` fresh 4 KiB pages. Against floor (a) in the same
 * rounds it gives what one page fault costs on this machine: information for reading the page-fault counts.
 */
export function buildTouchPagesFloor(dir: string, pages: number): Promise<string> {
  const source = `const bytes = new Uint8Array(${pages} * 4096);
for (let i = 0; i < bytes.length; i += 4096) bytes[i] = 1;
console.log("floor 0.0.0");
`;
  return compileFloor(dir, "touch-pages", source);
}

/** What floor (b) replays: the request fermix sent, as the fake recorded it. */
export type ReplayedRequest = { url: string; headers: Record<string, string>; body: string };

/**
 * Floor (b): POSTs `request` (URL, headers and body baked into the program, so it reads nothing at start-up)
 * and reads the streamed answer to its end, then writes it to stdout so the bench can see the stream completed.
 */
export function buildOneFetchFloor(dir: string, request: ReplayedRequest): Promise<string> {
  const source = `${fetchAndRead(request)}await Bun.write(Bun.stdout, new Blob(chunks));
if (!response.ok) process.exitCode = 1;
`;
  return compileFloor(dir, "one-fetch", source);
}

/** Program text: reads `response`'s body to its end, into `chunks`. */
const READ_TO_END = `const chunks = [];
const reader = response.body.getReader();
for (;;) {
  const { done, value } = await reader.read();
  if (done) break;
  chunks.push(value);
}
`;

/**
 * Floor (b)'s request and stream read, as program text; `whileOut` is program text run once the request is sent and
 * before its answer is awaited (floor (c)'s database work, as a one-shot ask overlaps it with the model's wait).
 */
function fetchAndRead(request: ReplayedRequest, whileOut: () => string = () => ""): string {
  return `const responding = fetch(${JSON.stringify(request.url)}, {
  method: "POST",
  headers: ${JSON.stringify(request.headers)},
  body: ${JSON.stringify(request.body)},
});
${whileOut()}const response = await responding;
${READ_TO_END}`;
}

/**
 * Program text: memory.db at \`path\` opened as src/memory/db.ts opens it (WAL, synchronous=NORMAL, the log kept),
 * with a message table and a usage table made on first use, as \`db\`; \`Database\` in scope.
 */
const OPEN_MEMORY_DB = `import { existsSync } from "node:fs";
const { Database, constants } = process.getBuiltinModule("bun:sqlite");
const fresh = !existsSync(path);
const db = new Database(path, { create: true, strict: true });
db.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1);
db.exec("PRAGMA busy_timeout = 5000");
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = NORMAL");
if (fresh) {
  db.exec("CREATE TABLE messages (id INTEGER PRIMARY KEY, role TEXT NOT NULL, text TEXT NOT NULL, at INTEGER NOT NULL)");
  db.exec("CREATE TABLE usage (id INTEGER PRIMARY KEY, input INTEGER, output INTEGER, at INTEGER NOT NULL)");
}
`;

/** Program text: the owner's words, the reply and a usage row (each a JS expression) stored in one transaction. */
function storeTurn(words: string, reply: string, input: string, output: string): string {
  return `db.transaction(() => {
  const store = db.query("INSERT INTO messages (role, text, at) VALUES ($role, $text, $at)");
  store.run({ role: "user", text: ${words}, at: Date.now() });
  store.run({ role: "assistant", text: ${reply}, at: Date.now() });
  db.query("INSERT INTO usage (input, output, at) VALUES ($input, $output, $at)").run({ input: ${input}, output: ${output}, at: Date.now() });
})();`;
}

/**
 * Floor (c), the duties of an in-process ask, whatever code does them, in the order src/memory/lazy-database.ts
 * keeps: node:fs loaded (an ask works its home through it: folders made owner-only, the log appended, skills
 * listed); floor (b)'s request sent; while it is out, memory.db at `dbPath` opened as src/memory/db.ts opens it (WAL,
 * synchronous=NORMAL, the log kept) with oneshot-close.ts's read-only holder; once the answer is in, the owner's words,
 * the reply and a usage row stored in one transaction; then closed as oneshot-close.ts closes it. Information, not a
 * target: it shows how much of the daemon-down ratio those duties take before any of fermix's own work.
 */
export function buildDutiesFloor(dir: string, request: ReplayedRequest, dbPath: string): Promise<string> {
  const source = `const path = ${JSON.stringify(dbPath)};
${fetchAndRead(
  request,
  () => `${OPEN_MEMORY_DB}const holder = new Database(path, { readonly: true, strict: true });
holder.query("PRAGMA user_version").get();
`,
)}${storeTurn(`"ping"`, `"pong"`, "1", "1")}
db.close();
holder.close();
await Bun.write(Bun.stdout, new Blob(chunks));
if (!response.ok) process.exitCode = 1;
`;
  return compileFloor(dir, "duties", source);
}

/**
 * Floor (d), the shape of an ask through the daemon, whatever code runs it: a client that POSTs an ask to the unix
 * socket `socket` and reads the streamed answer, and a relay daemon there that sends floor (b)'s request to the
 * provider and streams its answer back (it says "listening on" on stderr once it listens). Information, not a
 * target: it shows how much of the daemon-up ratio the split into a client and a daemon takes by itself.
 */
export async function buildRelayFloor(
  dir: string,
  request: ReplayedRequest,
  socket: string,
): Promise<{ daemon: string; client: string }> {
  const daemon = `Bun.serve({
  unix: ${JSON.stringify(socket)},
  async fetch(ask) {
    await ask.json();
    const response = await fetch(${JSON.stringify(request.url)}, {
      method: "POST",
      headers: ${JSON.stringify(request.headers)},
      body: ${JSON.stringify(request.body)},
    });
    return new Response(response.body, { status: response.status, headers: { "content-type": "text/event-stream" } });
  },
});
console.error(${JSON.stringify(`listening on ${socket}`)});
`;
  return {
    daemon: await compileFloor(dir, "relay-daemon", daemon),
    client: await compileFloor(dir, "relay-client", relayClient(socket)),
  };
}

/** Program text: floor (d)'s client, which POSTs an ask to the unix socket \`socket\` and prints the answer. */
function relayClient(socket: string): string {
  return `const response = await fetch("http://fermix/v1/ask", {
  unix: ${JSON.stringify(socket)},
  method: "POST",
  headers: { "content-type": "application/json", accept: "text/event-stream" },
  body: JSON.stringify({ text: "ping", cwd: process.cwd(), timeout_ms: 300000 }),
});
${READ_TO_END}await Bun.write(Bun.stdout, new Blob(chunks));
if (!response.ok) process.exitCode = 1;
`;
}

/**
 * Floor (e), floor (d) with a daemon's duties, whatever code does them: memory.db at \`dbPath\` open for the daemon's
 * life (as floor (c) opens it); each answer forwarded as it streams and read as a daemon must read it to keep the
 * turn (its events parsed but for the request's echoes, as wires/openai-responses.ts skips them; the reply's text and
 * the usage taken); and before the answer ends, the owner's words, the reply and a usage row stored in one
 * transaction, as a turn commits before its \`done\`. Information, not a target: it shows how much of the daemon-up
 * ratio a daemon that keeps its conversations takes before any of fermix's own work.
 */
export async function buildRelayDutiesFloor(
  dir: string,
  request: ReplayedRequest,
  socket: string,
  dbPath: string,
): Promise<{ daemon: string; client: string }> {
  const daemon = `const path = ${JSON.stringify(dbPath)};
${OPEN_MEMORY_DB}const ECHOES = new Set(["response.created", "response.in_progress", "response.queued"]);
Bun.serve({
  unix: ${JSON.stringify(socket)},
  async fetch(ask) {
    const question = await ask.json();
    const response = await fetch(${JSON.stringify(request.url)}, {
      method: "POST",
      headers: ${JSON.stringify(request.headers)},
      body: ${JSON.stringify(request.body)},
    });
    const upstream = response.body.getReader();
    const decoder = new TextDecoder();
    let pending = "";
    let reply = "";
    let usage;
    const stream = new ReadableStream({
      async pull(out) {
        const { done, value } = await upstream.read();
        if (done) {
          ${storeTurn("question.text", "reply", "usage?.input_tokens ?? 0", "usage?.output_tokens ?? 0")}
          out.close();
          return;
        }
        out.enqueue(value);
        pending += decoder.decode(value, { stream: true });
        for (let end = pending.indexOf("\\n\\n"); end >= 0; end = pending.indexOf("\\n\\n")) {
          const frame = pending.slice(0, end);
          pending = pending.slice(end + 2);
          let name = "";
          let data = "";
          for (const line of frame.split("\\n")) {
            if (line.startsWith("event: ")) name = line.slice(7);
            else if (line.startsWith("data: ")) data += line.slice(6);
          }
          if (!data || ECHOES.has(name)) continue;
          const event = JSON.parse(data);
          if (event.type === "response.output_text.delta") reply += event.delta;
          else if (event.type === "response.completed") usage = event.response?.usage;
        }
      },
    });
    return new Response(stream, { status: response.status, headers: { "content-type": "text/event-stream" } });
  },
});
console.error(${JSON.stringify(`listening on ${socket}`)});
`;
  return {
    daemon: await compileFloor(dir, "relay-duties-daemon", daemon),
    client: await compileFloor(dir, "relay-duties-client", relayClient(socket)),
  };
}

// Set by the client's HTTP stack for each connection, not chosen by the program; fetch writes its own.
const HOP_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding", "keep-alive"]);

/**
 * The request fermix made, to replay byte for byte: its URL on `baseOrigin`, every header it chose, and the body
 * as JSON. The fake keeps the parsed body, so the replay is its re-serialisation; `bytes` (what went on the
 * wire) is kept so a bench can say when the two differ in size.
 */
export function replayOf(recorded: RecordedRequest, baseOrigin: string): ReplayedRequest & { wireBytes: number } {
  const headers = Object.fromEntries(Object.entries(recorded.headers).filter(([name]) => !HOP_HEADERS.has(name)));
  const body = typeof recorded.body === "string" ? recorded.body : JSON.stringify(recorded.body);
  return { url: new URL(recorded.path, baseOrigin).href, headers, body, wireBytes: recorded.bytes };
}

/**
 * `bun build --compile` with build.ts's options (minify, bytecode, ESM, no bunfig/.env autoload), run in `dir`
 * so no project config is picked up. Throws with Bun's output when the build fails.
 */
async function compileFloor(dir: string, name: string, source: string): Promise<string> {
  const entry = join(dir, `${name}.ts`);
  const outfile = join(dir, name);
  await writeFile(entry, source);
  const proc = Bun.spawn(
    [
      projectBun(),
      "build",
      "--compile",
      "--minify",
      "--bytecode",
      "--format=esm",
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
      "--outfile",
      outfile,
      entry,
    ],
    { cwd: dir, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`building the ${name} floor failed (exit ${code}):\n${out}${err}`);
  return outfile;
}
