/**
 * How much memory does an idle daemon hold? Starts `fermix run` against a fake OpenAI Responses server and
 * prints its resident memory (split into anonymous and file-backed pages) after boot, after one `ask ping` and
 * after five more, with the size of the ask's request body; then fires `--queued` (1,000) asks at once through the
 * socket, `--batch` (100) connections opened at a time, waits for all and prints the RSS right after and once it
 * settles. Targets (issue 31): ≤ 50 MB after boot and after one ask, settling within 1.5× of boot after the
 * queued turns; (issue 27) request ≤ 15,360 bytes: the everyday built-ins travel whole.
 *
 * Most of a Bun binary's resident memory is pages of the executable itself, and how many of those a page fault
 * maps depends on what the page cache holds (fault-around): a binary just written by the build reads ~5 MB
 * higher than one read cold. Run as root, the bench drops the page cache first (`--cold`, the default when it
 * can) so two binaries are compared alike; otherwise compare binaries built and run the same way.
 *
 *   bun bench/daemon-rss.ts [--binary PATH] [--warm] [--queued N] [--batch N]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fermixPaths } from "../src/config/paths.ts";
import { createDaemonClient } from "../src/protocol/client.ts";
import { startFakeOpenAIResponses } from "../test/fake/llm.ts";
import { benchBinary, benchRuns, fakeProviderEnv, startUntilReady } from "./_measure.ts";

const KEY = "sk-bench-rss";
const TARGET = { rssMb: 50, requestBytes: 15_360, settledOfBoot: 1.5 };
// How long the RSS may take to come back down after the queued turns before it counts as not settling.
const SETTLE_MS = 15_000;

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    binary: { type: "string" },
    warm: { type: "boolean", default: false },
    queued: { type: "string", default: "1000" },
    batch: { type: "string", default: "100" },
  },
});
const binary = benchBinary(flags.binary);
const queued = benchRuns(flags.queued);
const batch = benchRuns(flags.batch);

const root = await mkdtemp(join(tmpdir(), "fxm-"));
const fake = await startFakeOpenAIResponses({ apiKey: KEY });
fake.setDefault({ kind: "text", text: "pong" });
let stop: (() => Promise<number>) | undefined;
try {
  const env = await fakeProviderEnv(root, fake.baseUrl, KEY);
  const cold = !flags.warm && dropPageCache();
  const daemon = await startUntilReady([binary, "run"], { env, cwd: root }, "listening on");
  stop = daemon.stop;
  const pid = daemonPid(env.FERMIX_HOME);
  const ask = async () => {
    const proc = Bun.spawn([binary, "ask", "ping"], { env, cwd: root, stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    if (code !== 0 || out.trim() !== "pong") throw new Error(`ask exited ${code} printing ${JSON.stringify(out)}`);
  };
  // Settled, not racing the daemon's own start-up work: the readiness line came first; give timers a turn.
  await Bun.sleep(500);
  const boot = memory(pid);
  await ask();
  await Bun.sleep(500);
  const afterOne = memory(pid);
  const requestBytes = JSON.stringify(fake.requests.at(-1)!.body).length;
  for (let i = 0; i < 5; i++) await ask();
  await Bun.sleep(500);
  const afterSix = memory(pid);

  const queuedTurns = await askQueued(createDaemonClient(fermixPaths(env.FERMIX_HOME).socket), queued, batch);
  const afterQueued = memory(pid);
  const settled = await settle(pid, boot.total * TARGET.settledOfBoot);

  console.log(`fermix daemon (${binary}), page cache ${cold ? "dropped first (cold)" : "as it was (warm)"}`);
  const underTarget = (m: Memory) => verdict(m.total <= TARGET.rssMb, `≤ ${TARGET.rssMb} MB`);
  console.log(`  after boot        ${boot}  ${underTarget(boot)}`);
  console.log(`  after one ask     ${afterOne}  ${underTarget(afterOne)}`);
  console.log(`  after six asks    ${afterSix}`);
  console.log(
    `  after ${queued} queued turns (${batch} at a time; ${queuedTurns} answered pong, ${queued - queuedTurns} not)`,
  );
  console.log(`    right after     ${afterQueued}`);
  const bound = `≤ ${TARGET.settledOfBoot}× boot (${(boot.total * TARGET.settledOfBoot).toFixed(1)} MB)`;
  const settledIn = settled.inMs === undefined ? `not within ${SETTLE_MS / 1000} s` : `after ${settled.inMs} ms`;
  console.log(`    settled         ${settled.memory}  ${settledIn}  ${verdict(settled.inMs !== undefined, bound)}`);
  console.log(
    `  ask ping request  ${(requestBytes / 1024).toFixed(1)} KB  ${verdict(requestBytes <= TARGET.requestBytes, "≤ 15 KB")}`,
  );
} finally {
  if (stop) await stop().catch(() => {});
  await fake.close();
  await rm(root, { recursive: true, force: true });
}

/**
 * Starts `n` asks through the daemon's socket without waiting for any answer, `batch` at a time with a turn of the
 * event loop between batches (waves, not one burst into the accept backlog), then waits for all of them. Bun's
 * fetch keeps at most 256 requests in flight (BUN_CONFIG_MAX_HTTP_REQUESTS); the rest wait in this process.
 * Returns how many answered "pong".
 */
async function askQueued(client: ReturnType<typeof createDaemonClient>, n: number, batch: number): Promise<number> {
  const answers: Promise<boolean>[] = [];
  for (let started = 0; started < n; started += batch) {
    const wave = Array.from({ length: Math.min(batch, n - started) }, () =>
      client.ask({ text: "ping" }).then(
        (done) => done.response.trim() === "pong",
        () => false,
      ),
    );
    answers.push(...wave);
    await Bun.sleep(0);
  }
  return (await Promise.all(answers)).filter(Boolean).length;
}

/** Samples the RSS every 250 ms until it is at most `boundMb` or SETTLE_MS have passed; the last sample either way. */
async function settle(pid: number, boundMb: number): Promise<{ memory: Memory; inMs: number | undefined }> {
  const t0 = performance.now();
  for (;;) {
    const m = memory(pid);
    const elapsed = performance.now() - t0;
    if (m.total <= boundMb) return { memory: m, inMs: Math.round(elapsed) };
    if (elapsed >= SETTLE_MS) return { memory: m, inMs: undefined };
    await Bun.sleep(250);
  }
}

type Memory = { total: number; anon: number; file: number; toString(): string };

function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (key: string) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0) / 1024;
  const m = { total: mb("VmRSS"), anon: mb("RssAnon"), file: mb("RssFile") };
  return {
    ...m,
    toString: () => `RSS ${m.total.toFixed(1)} MB (anonymous ${m.anon.toFixed(1)}, file-backed ${m.file.toFixed(1)})`,
  };
}

function daemonPid(home: string): number {
  return Number(readFileSync(join(home, "daemon.lock"), "utf8").trim());
}

/** Root only; a bench elsewhere compares warm binaries. */
function dropPageCache(): boolean {
  try {
    Bun.spawnSync(["sync"]);
    writeFileSync("/proc/sys/vm/drop_caches", "3");
    return true;
  } catch {
    return false;
  }
}

function verdict(pass: boolean, target: string): string {
  return `target ${target}  ${pass ? "PASS" : "MISS"}`;
}
