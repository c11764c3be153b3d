/**
 * Two fermix binaries against each other, for a change measured before it is committed (issue 31): each run of the
 * one interleaved with a run of the other (A B A B …), over fresh copies of both.
 *
 * Why copies: a binary file read back from disk and one just written hold the same bytes but not the same pages,
 * and on the VMs we measure on that alone moved a daemon-down ask by 2-3 ms and `ask --help` by ~0.7 ms, the size
 * of the changes being measured (bench/_measure.ts's freshCopy). Three "gains" of one session came from comparing
 * an older build with a newer one that way.
 *
 *   bun bench/ab.ts --a OLD --b NEW [--runs 41] [--what version,help,up,down]
 *
 * `up` asks through one daemon (a copy of B, so both clients meet the same daemon); `down` runs each in-process
 * against a fake OpenAI on loopback, in a home of its own. Prints each figure's medians, B − A and B / A, and the
 * clients' CPU (user + system) medians.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startFakeOpenAIResponses } from "../test/fake/llm.ts";
import { benchRuns, freshCopy, sampleInterleaved, startUntilReady, stats } from "./_measure.ts";

const KEY = "sk-bench-ab-0123456789abcdef";
const FIGURES = ["version", "help", "up", "down"] as const;
type Figure = (typeof FIGURES)[number];
const WARMUP = 3;

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    a: { type: "string" },
    b: { type: "string" },
    runs: { type: "string", default: "41" },
    what: { type: "string", default: FIGURES.join(",") },
  },
});
if (!flags.a || !flags.b) {
  console.error("usage: bun bench/ab.ts --a OLD_BINARY --b NEW_BINARY [--runs N] [--what version,help,up,down]");
  process.exit(2);
}
const runs = benchRuns(flags.runs);
const wanted = flags.what.split(",").map((w) => w.trim());
for (const w of wanted) {
  if (!(FIGURES as readonly string[]).includes(w)) {
    console.error(`--what: unknown figure "${w}" (known: ${FIGURES.join(", ")})`);
    process.exit(2);
  }
}

/** One run: wall time from spawn to exit and the child's CPU, both in ms; throws when it did not answer as it must. */
type Timed = { wall: number; cpu: number };
async function timed(cmd: string[], env: Record<string, string>, cwd: string, expect: string): Promise<Timed> {
  const t0 = performance.now();
  const proc = Bun.spawn(cmd, { env, cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const wall = performance.now() - t0;
  if (code !== 0 || !stdout.includes(expect)) {
    throw new Error(`${cmd.join(" ")} exited ${code}, stdout ${JSON.stringify(stdout.slice(0, 200))}: ${stderr}`);
  }
  const usage = proc.resourceUsage();
  const cpu = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : Number.NaN;
  return { wall, cpu };
}

const root = await mkdtemp(join(tmpdir(), "fxab-"));
const fake = await startFakeOpenAIResponses({ apiKey: KEY });
fake.setDefault({ kind: "text", text: "pong" });
let stopDaemon: (() => Promise<number>) | undefined;
try {
  for (const dir of ["a", "b", "daemon", "home", "up", "down-a", "down-b"])
    await mkdir(join(root, dir), { mode: 0o700 });
  const a = await freshCopy(resolve(flags.a), join(root, "a"));
  const b = await freshCopy(resolve(flags.b), join(root, "b"));
  const envFor = (home: string): Record<string, string> => ({
    FERMIX_HOME: join(root, home),
    HOME: join(root, "home"),
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.baseUrl,
    PATH: "/usr/bin:/bin",
  });
  const pair = (cmd: (binary: string) => string[], envA: string, envB: string, expect: string) =>
    sampleInterleaved(
      runs,
      WARMUP,
      () => timed(cmd(a), envFor(envA), root, expect),
      () => timed(cmd(b), envFor(envB), root, expect),
    );

  console.log(
    `A ${flags.a}\nB ${flags.b}\nfresh copies of both; ${runs} interleaved pairs after ${WARMUP} warm-up pairs`,
  );
  console.log(
    `${"figure".padEnd(12)}${"A wall".padStart(10)}${"B wall".padStart(10)}${"B − A".padStart(10)}` +
      `${"B / A".padStart(9)}${"A cpu".padStart(10)}${"B cpu".padStart(10)}`,
  );
  const print = (name: Figure, r: { a: Timed[]; b: Timed[] }) => {
    const [wa, wb] = [stats(r.a.map((x) => x.wall)).median, stats(r.b.map((x) => x.wall)).median];
    const [ca, cb] = [stats(r.a.map((x) => x.cpu)).median, stats(r.b.map((x) => x.cpu)).median];
    const ms = (n: number) => `${n.toFixed(2)} ms`.padStart(10);
    const delta = `${wb - wa >= 0 ? "+" : ""}${(wb - wa).toFixed(2)}`.padStart(10);
    console.log(
      `${name.padEnd(12)}${ms(wa)}${ms(wb)}${delta}${`${(wb / wa).toFixed(3)}×`.padStart(9)}${ms(ca)}${ms(cb)}`,
    );
  };

  if (wanted.includes("version")) print("version", await pair((bin) => [bin, "--version"], "down-a", "down-b", "."));
  if (wanted.includes("help"))
    print("help", await pair((bin) => [bin, "ask", "--help"], "down-a", "down-b", "--schema"));
  if (wanted.includes("down")) print("down", await pair((bin) => [bin, "ask", "ping"], "down-a", "down-b", "pong"));
  if (wanted.includes("up")) {
    const daemonBinary = await freshCopy(resolve(flags.b), join(root, "daemon"));
    const daemon = await startUntilReady([daemonBinary, "run"], { env: envFor("up"), cwd: root }, "listening on");
    stopDaemon = daemon.stop;
    print("up", await pair((bin) => [bin, "ask", "ping"], "up", "up", "pong"));
  }
} finally {
  await stopDaemon?.();
  await fake.close();
  await rm(root, { recursive: true, force: true });
}
