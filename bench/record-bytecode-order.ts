/**
 * Records the profiles build.ts lays the binary's bytecode out by (Bun's profile-guided bytecode layout): each of
 * the binary's everyday runs writes the functions it used, and the next build places those together at the front
 * of the embedded bytecode, so a run reads and maps fewer pages of the executable (issue 31: the daemon's resident
 * memory after boot fell from 49.3 to ~44.9 MB, 4.7 MB of it bytecode pages; `fermix ask` starts with fewer faults).
 *
 * The runs, most common first (the order build.ts passes them in, by file name): the daemon's boot and first asks,
 * an ask through it, an in-process ask (no daemon). Functions are matched by a hash of their syntax, so a profile
 * keeps working as the code changes; functions added since are placed right after the recorded ones. Record again
 * when a large part of what those runs use has changed.
 *
 *   bun build.ts && bun bench/record-bytecode-order.ts [--binary PATH] && bun build.ts
 */
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BYTECODE_ORDER_DIR } from "../src/release/bytecode-order.ts";
import { startFakeOpenAIResponses } from "../test/fake/llm.ts";
import { benchBinary, fakeProviderEnv, startUntilReady, timeRun } from "./_measure.ts";

const KEY = "sk-bench-order";
/** The daemon's first asks are what its resident memory is measured after (bench/daemon-rss.ts). */
const DAEMON_ASKS = 3;

const { values: flags } = parseArgs({ args: Bun.argv.slice(2), options: { binary: { type: "string" } } });
const binary = benchBinary(flags.binary);

const root = await mkdtemp(join(tmpdir(), "fxo-"));
const fake = await startFakeOpenAIResponses({ apiKey: KEY });
fake.setDefault({ kind: "text", text: "pong" });
try {
  const env = await fakeProviderEnv(root, fake.baseUrl, KEY);
  const recorded = join(root, "recorded");
  await mkdir(recorded);
  const recording = (name: string) => ({ ...env, BUN_BYTECODE_ORDER_OUT: join(recorded, `${name}.order`) });
  const ask = async (name?: string) => {
    const run = await timeRun([binary, "ask", "ping"], { env: name ? recording(name) : env, cwd: root });
    if (run.code !== 0 || run.stdout.trim() !== "pong") {
      throw new Error(`ask exited ${run.code} printing ${JSON.stringify(run.stdout)}: ${run.stderr}`);
    }
  };

  // Bun writes a profile as the process exits: the daemon's once it is stopped.
  const daemon = await startUntilReady([binary, "run"], { env: recording("1-daemon"), cwd: root }, "listening on");
  try {
    await ask("2-ask");
    for (let i = 1; i < DAEMON_ASKS; i++) await ask();
  } finally {
    await daemon.stop();
  }
  await ask("3-oneshot");

  await rm(BYTECODE_ORDER_DIR, { recursive: true, force: true });
  await mkdir(BYTECODE_ORDER_DIR, { recursive: true });
  for (const name of readdirSync(recorded).sort()) {
    await Bun.write(join(BYTECODE_ORDER_DIR, name), Bun.file(join(recorded, name)));
    console.log(`recorded ${join(BYTECODE_ORDER_DIR, name)}`);
  }
  if (!existsSync(join(BYTECODE_ORDER_DIR, "1-daemon.order"))) throw new Error("the daemon wrote no profile");
  console.log("build again (bun build.ts) to lay the binary out by them; commit the profiles");
} finally {
  await fake.close();
  await rm(root, { recursive: true, force: true });
}
