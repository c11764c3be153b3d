/**
 * How much does fermix add on top of the model call itself? Times `fermix --version`, and `fermix ask "ping"`
 * with the daemon up and down, against a fake OpenAI Responses server that answers instantly, and compares
 * each ask with a bare curl of the very same request. Prints figures and PASS/MISS against the targets;
 * asserts nothing beyond "every run did what it should".
 *
 *   bun bench/ask-overhead.ts [--runs N] [--binary PATH]
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type FakeLlm, startFakeOpenAIResponses } from "../test/fake/llm.ts";
import { benchBinary, benchRuns, type Run, type Stats, sample, startUntilReady, stats, timeRun } from "./_measure.ts";

const KEY = "sk-bench-overhead";
const WARMUP = 3;
// Issue 12's budget (the first sessions' was 10 ms, 1.5× and 3×).
const TARGET = { versionMs: 6, daemonUp: 1.2, daemonDown: 2 };

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: { runs: { type: "string", default: "30" }, binary: { type: "string" } },
});
const runs = benchRuns(flags.runs);
const binary = benchBinary(flags.binary);
if (!Bun.which("curl")) {
  console.error("curl is not on PATH; it is the baseline every ask is compared with");
  process.exit(1);
}

// A short temp root: the daemon's unix socket lives under FERMIX_HOME and socket paths stop at ~100 bytes.
const root = await mkdtemp(join(tmpdir(), "fxb-"));
const fake = await startFakeOpenAIResponses({ apiKey: KEY });
fake.setDefault({ kind: "text", text: "pong" });
let stopDaemon: (() => Promise<number>) | undefined;

try {
  await mkdir(join(root, "home"));
  // Separate homes, so the daemon-down asks never trip over a socket file the daemon left behind.
  const envFor = (name: string): Record<string, string> => ({
    FERMIX_HOME: join(root, name),
    HOME: join(root, "home"),
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.baseUrl,
    PATH: "/usr/bin:/bin",
  });
  const spawnOpts = (name: string) => ({ env: envFor(name), cwd: root });
  const ask = (name: string) => () => timeRun([binary, "ask", "ping"], spawnOpts(name));

  const version = await sample(runs, WARMUP, () => timeRun([binary, "--version"], spawnOpts("down")), expectOk);

  const down = await sampleAsk(fake, ask("down"));
  const body = down.body;

  const daemon = await startUntilReady([binary, "run"], spawnOpts("up"), "listening on");
  stopDaemon = daemon.stop;
  const up = await sampleAsk(fake, ask("up"));
  stopDaemon = undefined;
  const daemonExit = await daemon.stop();
  if (daemonExit !== 0) console.error(`note: the daemon exited ${daemonExit} on SIGTERM`);
  if (JSON.stringify(up.body) !== JSON.stringify(body))
    console.error("note: the daemon sent a different request body than the in-process ask; curl replays the latter");

  // Replay the exact bytes fermix sent, with the headers a client minimally needs, as the floor to compare with.
  const bodyFile = join(root, "body.json");
  await writeFile(bodyFile, JSON.stringify(body));
  const curlCmd = [
    "curl",
    "-s",
    "-N",
    "-X",
    "POST",
    "-H",
    `authorization: Bearer ${KEY}`,
    "-H",
    "content-type: application/json",
    "--data-binary",
    `@${bodyFile}`,
    `${fake.baseUrl}/responses`,
  ];
  const curl = await sampleRequests(
    fake,
    () => timeRun(curlCmd, { cwd: root }),
    (run) => {
      expectOk(run);
      if (!run.stdout.includes("response.completed")) throw new Error(`curl got no completed stream:\n${run.stdout}`);
    },
  );

  const curlStats = stats(curl.runs.map((r) => r.ms));
  const versionStats = stats(version.map((r) => r.ms));
  console.log(`fermix ${version[0]!.stdout.trim()} (${binary}), ${runs} runs each after ${WARMUP} warm-up runs`);
  console.log(`times are spawn→exit wall time; "req @" is the median time from spawn to the fake receiving the body`);
  console.log();
  printRow(
    "fermix --version",
    versionStats,
    "",
    `target < ${TARGET.versionMs} ms`,
    versionStats.median < TARGET.versionMs,
  );
  printRow("curl (same request)", curlStats, reqAt(curl), "", undefined);
  for (const [label, result, target] of [
    ["ask, daemon up", up, TARGET.daemonUp],
    ["ask, daemon down", down, TARGET.daemonDown],
  ] as const) {
    const s = stats(result.runs.map((r) => r.ms));
    const ratio = s.median / curlStats.median;
    printRow(label, s, reqAt(result), `ratio ${ratio.toFixed(2)}× curl  target ≤ ${target}×`, ratio <= target);
  }
} finally {
  if (stopDaemon) await stopDaemon().catch(() => {});
  await fake.close();
  await rm(root, { recursive: true, force: true });
}

type Sampled = { runs: Run[]; reqAt: number[]; body: unknown };

/** Samples a command that must make exactly one request to the fake per run, and records when it arrived. */
async function sampleRequests(fake: FakeLlm, once: () => Promise<Run>, check: (run: Run) => void): Promise<Sampled> {
  const reqAt: number[] = [];
  let body: unknown;
  const counted = async () => {
    const before = fake.requests.length;
    const run = await once();
    check(run);
    const sent = fake.requests.slice(before);
    if (sent.length !== 1) throw new Error(`expected 1 request to the fake per run, saw ${sent.length}`);
    body ??= sent[0]!.body;
    reqAt.push(sent[0]!.receivedAt - run.startedAt);
    return run;
  };
  const measured = await sample(runs, WARMUP, counted);
  // reqAt also holds the warm-up runs; keep only the measured tail.
  return { runs: measured, reqAt: reqAt.slice(WARMUP), body };
}

function sampleAsk(fake: FakeLlm, once: () => Promise<Run>): Promise<Sampled> {
  return sampleRequests(fake, once, (run) => {
    expectOk(run);
    if (run.stdout.trim() !== "pong") throw new Error(`ask printed ${JSON.stringify(run.stdout)}, expected "pong"`);
  });
}

function expectOk(run: Run) {
  if (run.code !== 0) throw new Error(`exit ${run.code}:\n${run.stderr}`);
}

function reqAt(result: Sampled): string {
  return `req @ ${stats(result.reqAt).median.toFixed(0)} ms`;
}

function printRow(label: string, s: Stats, extra: string, target: string, pass: boolean | undefined) {
  const cells = [
    label.padEnd(22),
    `median ${s.median.toFixed(1).padStart(6)} ms`,
    `p90 ${s.p90.toFixed(1).padStart(6)} ms`,
    extra.padEnd(12),
    target.padEnd(34),
    pass === undefined ? "" : pass ? "PASS" : "MISS",
  ];
  console.log(cells.join("  ").trimEnd());
}
