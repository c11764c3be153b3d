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

/** What floor (b) replays: the request fermix sent, as the fake recorded it. */
export type ReplayedRequest = { url: string; headers: Record<string, string>; body: string };

/**
 * Floor (b): POSTs `request` (URL, headers and body baked into the program, so it reads nothing at start-up)
 * and reads the streamed answer to its end, then writes it to stdout so the bench can see the stream completed.
 */
export function buildOneFetchFloor(dir: string, request: ReplayedRequest): Promise<string> {
  const source = `const response = await fetch(${JSON.stringify(request.url)}, {
  method: "POST",
  headers: ${JSON.stringify(request.headers)},
  body: ${JSON.stringify(request.body)},
});
const chunks = [];
const reader = response.body.getReader();
for (;;) {
  const { done, value } = await reader.read();
  if (done) break;
  chunks.push(value);
}
await Bun.write(Bun.stdout, new Blob(chunks));
if (!response.ok) process.exitCode = 1;
`;
  return compileFloor(dir, "one-fetch", source);
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
