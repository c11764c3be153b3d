/**
 * How much does fermix add on top of what the runtime itself costs? Issue 31: every figure is a ratio to a floor
 * compiled in the same run with the project's Bun (bench/_floors.ts), run interleaved with fermix (A B A B …) so
 * both see the same machine load:
 *
 *   `fermix --version`              vs  a compiled program that prints one line          target ≤ 1.1×
 *   `fermix ask --help`             vs  the same print-a-line program                    target ≤ 1.2×
 *   `fermix ask "ping"`, daemon up  vs  a compiled program that POSTs the very request   target ≤ 1.2×
 *   `fermix ask "ping"`, daemon down    fermix sent to the fake and reads the stream     target ≤ 1.5×
 *
 * The fake OpenAI Responses server answers instantly. Prints medians, p90s, the floors' own medians, the ratios
 * and PASS/MISS; asserts nothing beyond "every run did what it should".
 *
 * Then, as information with no target, what the design itself costs against the one-fetch floor, before any of
 * fermix's own code (bench/_floors.ts): the same fetch made through a relay daemon on a unix socket (an ask's shape
 * with the daemon up); through a relay that keeps the turn as a daemon must (the answer's events read, the owner's
 * words, the reply and usage stored in memory.db before the answer ends); and made with an in-process ask's duties
 * around it (node:fs, memory.db opened as fermix opens it while the request is out, the same three rows stored once
 * the answer is in). What fermix adds over each is what its own code costs.
 *
 * Last, on Linux, each figure's median page faults against its floors', and what one fault costs here (the
 * print-a-line floor made to touch fresh pages): counts that hardly move with load, and on VMs with shadow paging
 * (~15 µs a fault, ~50× bare metal) most of what a start-up costs over its floor.
 *
 *   bun bench/ask-overhead.ts [--runs N] [--binary PATH]
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type FakeLlm, type RecordedRequest, startFakeOpenAIResponses } from "../test/fake/llm.ts";
import {
  buildDutiesFloor,
  buildOneFetchFloor,
  buildPrintLineFloor,
  buildRelayDutiesFloor,
  buildRelayFloor,
  buildTouchPagesFloor,
  projectBun,
  replayOf,
} from "./_floors.ts";
import {
  benchBinary,
  benchRuns,
  freshCopy,
  type Run,
  type Stats,
  sampleInterleaved,
  sampleRounds,
  startUntilReady,
  stats,
  timeRun,
} from "./_measure.ts";

const KEY = "sk-bench-overhead";
const WARMUP = 3;
// Issue 31's targets, as ratios of fermix's median to its floor's median in the same run.
const TARGET = { version: 1.1, help: 1.2, daemonUp: 1.2, daemonDown: 1.5 };
// Widths of the printed table's columns.
const COLUMNS = [22, 18, 7, 13, 18, 7, 9, 9];
const DESIGN_COLUMNS = [32, 18, 13, 22, 10];
const FAULT_COLUMNS = [32, 8, 32, 8, 10];
// Floor (f)'s fresh pages: enough that its time over floor (a) stands well above the print-line figures' noise.
const TOUCHED_PAGES = 4096;

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: { runs: { type: "string", default: "15" }, binary: { type: "string" } },
});
const runs = benchRuns(flags.runs);
// The print-line figures are sub-millisecond differences on a ~6 ms process, where one busy moment moves a median of
// 15 by more than the 10 % margin; they cost little, so they get three times the pairs.
const cheapRuns = runs * 3;
const source = benchBinary(flags.binary);

// A short temp root: the daemon's unix socket lives under FERMIX_HOME and socket paths stop at ~100 bytes.
const root = await mkdtemp(join(tmpdir(), "fxb-"));
const binary = await freshCopy(source, root);
const fake = await startFakeOpenAIResponses({ apiKey: KEY });
fake.setDefault({ kind: "text", text: "pong" });
let stopDaemon: (() => Promise<number>) | undefined;
let stopRelay: (() => Promise<number>) | undefined;
let stopKeeping: (() => Promise<number>) | undefined;

try {
  const floors = join(root, "floors");
  await mkdir(join(root, "home"));
  await mkdir(floors);
  // Separate homes, so the daemon-down asks never trip over a socket file the daemon left behind.
  const envFor = (name: string): Record<string, string> => ({
    FERMIX_HOME: join(root, name),
    HOME: join(root, "home"),
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.baseUrl,
    PATH: "/usr/bin:/bin",
  });
  const spawnOpts = (name: string) => ({ env: envFor(name), cwd: root });
  const ask = (name: string) => counted(fake, () => timeRun([binary, "ask", "ping"], spawnOpts(name)), expectPong);

  const printLine = await buildPrintLineFloor(floors);
  const floorA = () => timeRun([printLine], { cwd: root }).then(expectOk);

  // The first ask doubles as the capture of what fermix sends and as the first-run warm-up (memory.db etc.).
  const sentDown = (await ask("down")()).request;
  const fetchDown = await buildOneFetchFloor(floors, replayOf(sentDown, fake.baseUrl));
  const floorB = (program: string) => counted(fake, () => timeRun([program], { cwd: root }), expectStream);

  const pair = <R>(a: () => Promise<R>, b: () => Promise<R>, n = runs) => sampleInterleaved(n, WARMUP, a, b);
  const versionRun = () => timeRun([binary, "--version"], spawnOpts("down")).then(expectOk);
  const version = await pair(versionRun, floorA, cheapRuns);
  const help = await pair(
    () => timeRun([binary, "ask", "--help"], spawnOpts("down")).then(expectHelp),
    floorA,
    cheapRuns,
  );
  const touchPages = await buildTouchPagesFloor(floors, TOUCHED_PAGES);
  const touch = await pair(() => timeRun([touchPages], { cwd: root }).then(expectOk), floorA, runs);
  await mkdir(join(root, "duties"));
  const duties = await buildDutiesFloor(floors, replayOf(sentDown, fake.baseUrl), join(root, "duties", "memory.db"));
  // The design floor runs in the same rounds (fermix, its floor, the design floor), so all three ratios hold.
  const [downRuns, downFloor, dutiesRuns] = await sampleRounds(runs, WARMUP, [
    ask("down"),
    floorB(fetchDown),
    floorB(duties),
  ]);
  const down = { a: downRuns!, b: downFloor! };

  const daemon = await startUntilReady([binary, "run"], spawnOpts("up"), "listening on");
  stopDaemon = daemon.stop;
  const sentUp = (await ask("up")()).request;
  // Replay what the daemon sends when that differs from the in-process ask, so each floor does the same work.
  const sameBody = JSON.stringify(sentUp.body) === JSON.stringify(sentDown.body);
  const fetchUp = sameBody ? fetchDown : await buildOneFetchFloor(floors, replayOf(sentUp, fake.baseUrl));
  const relay = await buildRelayFloor(floors, replayOf(sentUp, fake.baseUrl), join(root, "relay.sock"));
  const relayDaemon = await startUntilReady([relay.daemon], { cwd: root }, "listening on");
  stopRelay = relayDaemon.stop;
  await mkdir(join(root, "relay-duties"));
  const keeping = await buildRelayDutiesFloor(
    floors,
    replayOf(sentUp, fake.baseUrl),
    join(root, "relay-duties.sock"),
    join(root, "relay-duties", "memory.db"),
  );
  const keepingDaemon = await startUntilReady([keeping.daemon], { cwd: root }, "listening on");
  stopKeeping = keepingDaemon.stop;
  const [upRuns, upFloor, relayRuns, keepingRuns] = await sampleRounds(runs, WARMUP, [
    ask("up"),
    floorB(fetchUp),
    floorB(relay.client),
    floorB(keeping.client),
  ]);
  const up = { a: upRuns!, b: upFloor! };
  stopKeeping = undefined;
  await keepingDaemon.stop();
  stopRelay = undefined;
  await relayDaemon.stop();
  stopDaemon = undefined;
  const daemonExit = await daemon.stop();

  console.log(`fermix ${version.a[0]!.stdout.trim()} (${source}, run from a fresh copy as the floors are)`);
  console.log(`floors compiled with ${projectBun()} (Bun ${Bun.version} runs this bench)`);
  console.log(
    `${runs} interleaved pairs (fermix, floor) per ask figure, ${cheapRuns} per print-line one, after ${WARMUP} warm-up pairs`,
  );
  console.log(`times are spawn→exit wall time; "req @" is the median time from spawn to the fake having the body`);
  console.log(`request body fermix sent: ${sentDown.bytes} bytes in process, ${sentUp.bytes} bytes from the daemon`);
  if (daemonExit !== 0) console.log(`note: the daemon exited ${daemonExit} on SIGTERM`);
  console.log();
  printHeader();
  printRow("fermix --version", version, "print a line", TARGET.version);
  printRow("fermix ask --help", help, "print a line", TARGET.help);
  printRow("ask ping, daemon up", up, "one fetch", TARGET.daemonUp);
  printRow("ask ping, daemon down", down, "one fetch", TARGET.daemonDown);
  console.log();
  console.log("what the design costs by itself (information, no target)");
  printDesignHeader();
  printDesignRow("one fetch via a relay daemon", relayRuns!, "ask ping, daemon up", up);
  printDesignRow("the relay keeping the turn", keepingRuns!, "ask ping, daemon up", up);
  printDesignRow("one fetch with memory.db duties", dutiesRuns!, "ask ping, daemon down", down);
  if (version.a[0]?.faults !== undefined) {
    console.log();
    console.log("page faults, medians (information, no target): they move ~1 % between runs where times move ~10 %");
    printCells(["figure", "fermix", "floor", "floor's", "fermix over it"], FAULT_COLUMNS);
    printFaultRow("fermix --version", version.a, "print a line", version.b);
    printFaultRow("fermix ask --help", help.a, "print a line", help.b);
    printFaultRow("ask ping, daemon up", up.a, "one fetch", up.b);
    printFaultRow("ask ping, daemon up", up.a, "the relay keeping the turn", keepingRuns!);
    printFaultRow("ask ping, daemon down", down.a, "one fetch", down.b);
    printFaultRow("ask ping, daemon down", down.a, "one fetch with memory.db duties", dutiesRuns!);
    printFaultCost(touch);
  }
} finally {
  if (stopDaemon) await stopDaemon().catch(() => {});
  if (stopRelay) await stopRelay().catch(() => {});
  if (stopKeeping) await stopKeeping().catch(() => {});
  await fake.close();
  await rm(root, { recursive: true, force: true });
}

type Hit = Run & { request: RecordedRequest; reqAt: number };

/** Wraps a run that must make exactly one request to the fake, and records that request and when it arrived. */
function counted(fake: FakeLlm, once: () => Promise<Run>, check: (run: Run) => Run): () => Promise<Hit> {
  return async () => {
    const before = fake.requests.length;
    const run = check(await once());
    const sent = fake.requests.slice(before);
    if (sent.length !== 1) throw new Error(`expected 1 request to the fake per run, saw ${sent.length}`);
    return { ...run, request: sent[0]!, reqAt: sent[0]!.receivedAt - run.startedAt };
  };
}

function expectOk(run: Run): Run {
  if (run.code !== 0) throw new Error(`exit ${run.code}:\n${run.stderr}`);
  return run;
}

function expectHelp(run: Run): Run {
  if (!expectOk(run).stdout.includes("Usage")) throw new Error(`ask --help printed no usage:\n${run.stdout}`);
  return run;
}

function expectPong(run: Run): Run {
  if (expectOk(run).stdout.trim() !== "pong") throw new Error(`ask printed ${JSON.stringify(run.stdout)}, not pong`);
  return run;
}

function expectStream(run: Run): Run {
  if (!expectOk(run).stdout.includes("response.completed"))
    throw new Error(`the one-fetch floor got no completed stream:\n${run.stdout}`);
  return run;
}

/** A median and p90, as both tables print them. */
function times(s: Stats): string {
  return `${s.median.toFixed(1)} / ${s.p90.toFixed(1)} ms`;
}

/** One line of a table: each cell padded to its column's width (the last one as it is). */
function printCells(cells: string[], widths: number[]) {
  console.log(
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd(),
  );
}

function printHeader() {
  const head = ["figure", "fermix median/p90", "req @", "floor", "floor median/p90", "req @", "ratio", "target"];
  printCells(head, COLUMNS);
}

function printDesignHeader() {
  const head = ["design floor", "median/p90", "vs one fetch", "fermix's figure", "fermix over it"];
  printCells(head, DESIGN_COLUMNS);
}

/**
 * A design floor against the one-fetch floor of the same rounds, then fermix's figure of those rounds over it: what
 * fermix's own code adds to what the design costs.
 */
function printDesignRow(label: string, design: Run[], figure: string, rounds: { a: Run[]; b: Run[] }) {
  const floor = stats(design.map((r) => r.ms));
  const fetchOnly = stats(rounds.b.map((r) => r.ms));
  const fermix = stats(rounds.a.map((r) => r.ms));
  const over = `${(fermix.median / floor.median).toFixed(3)}× (+${(fermix.median - floor.median).toFixed(1)} ms)`;
  const cells = [label, times(floor), `${(floor.median / fetchOnly.median).toFixed(3)}×`, figure, over];
  printCells(cells, DESIGN_COLUMNS);
}

/** Page-fault medians of fermix's figure and of a floor run in the same rounds, and the difference. */
function printFaultRow(label: string, fermixRuns: Run[], floor: string, floorRuns: Run[]) {
  const fermix = medianFaults(fermixRuns);
  const base = medianFaults(floorRuns);
  printCells(
    [label, String(fermix), floor, String(base), `${fermix - base >= 0 ? "+" : ""}${fermix - base}`],
    FAULT_COLUMNS,
  );
}

/** What one page fault costs here: floor (f) over floor (a), in time per fault, from the same rounds. */
function printFaultCost(touch: { a: Run[]; b: Run[] }) {
  const extraMs = stats(touch.a.map((r) => r.ms)).median - stats(touch.b.map((r) => r.ms)).median;
  const extraFaults = medianFaults(touch.a) - medianFaults(touch.b);
  const each = extraFaults > 0 ? `${((extraMs * 1000) / extraFaults).toFixed(1)} µs` : "—";
  console.log(
    `one page fault costs ~${each} here: ${TOUCHED_PAGES} fresh pages written took the print-a-line floor ` +
      `+${extraMs.toFixed(1)} ms for +${extraFaults} faults`,
  );
}

function medianFaults(runs: Run[]): number {
  return Math.round(stats(runs.map((r) => r.faults ?? Number.NaN)).median);
}

function printRow(label: string, pair: { a: Run[]; b: Run[] }, floor: string, target: number) {
  const fermix = stats(pair.a.map((r) => r.ms));
  const base = stats(pair.b.map((r) => r.ms));
  const ratio = fermix.median / base.median;
  const reqAt = (runs: Run[]) => {
    const at = runs.flatMap((r) => ("reqAt" in r ? [r.reqAt as number] : []));
    return at.length ? `${stats(at).median.toFixed(1)} ms` : "—";
  };
  const cells = [label, times(fermix), reqAt(pair.a), floor, times(base), reqAt(pair.b)];
  cells.push(`${ratio.toFixed(3)}×`, `≤ ${target}×`, ratio <= target ? "PASS" : "MISS");
  printCells(cells, COLUMNS);
}
