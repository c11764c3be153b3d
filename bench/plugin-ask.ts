/**
 * What does an enabled plugin cost an ask that does not use it? Times `fermix ask "ping"` one-shot (no daemon)
 * and through the daemon, against a fake OpenAI Responses server, with
 *   (a) no plugin enabled,
 *   (b) one working MCP plugin enabled and unused (server-everything, dev_local),
 *   (c) one hung MCP plugin enabled (a server that never answers initialize),
 * and prints each case's median against (a). Targets (issue 11): (b) ≤ 1.5× (a) one-shot; (b) and (c) ≤ 1.1×
 * (a) through the daemon. Runs of the three cases are interleaved so a machine whose speed drifts during the
 * bench drifts for all of them alike. Asserts nothing beyond "every run answered pong".
 *
 *   bun bench/plugin-ask.ts [--runs N] [--binary PATH]
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startFakeOpenAIResponses } from "../test/fake/llm.ts";
import { benchBinary, benchRuns, type Run, type Stats, startUntilReady, stats, timeRun } from "./_measure.ts";

const KEY = "sk-bench-plugin-ask";
const WARMUP = 3;
const TARGET = { oneShot: 1.5, daemon: 1.1 };
const ROOT = resolve(import.meta.dir, "..");
const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const HUNG = join(ROOT, "test/plugins/mcp-rail/fake-mcp-server.mjs");

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: { runs: { type: "string", default: "30" }, binary: { type: "string" } },
});
const runs = benchRuns(flags.runs);
const binary = benchBinary(flags.binary);

type Case = "a" | "b" | "c";
const LABEL: Record<Case, string> = {
  a: "(a) no plugin",
  b: "(b) MCP plugin, unused",
  c: "(c) hung MCP plugin",
};

// A short temp root: the daemon's unix socket lives under FERMIX_HOME and socket paths stop at ~100 bytes.
const root = await mkdtemp(join(tmpdir(), "fxp-"));
const fake = await startFakeOpenAIResponses({ apiKey: KEY });
fake.setDefault({ kind: "text", text: "pong" });
const daemons: Array<() => Promise<number>> = [];

try {
  const plugins = join(root, "plugins");
  await writePlugin(plugins, "everything", [EVERYTHING, "stdio"]);
  await writePlugin(plugins, "hung", [HUNG]);
  const config: Record<Case, string> = {
    a: "",
    b: `[fermix_core.plugins]\nenabled = ["everything"]\ndev_local = "${plugins}"\n`,
    c: `[fermix_core.plugins]\nenabled = ["hung"]\ndev_local = "${plugins}"\n[fermix_core.plugins.hung]\nMODE = "silent"\n`,
  };
  const envFor = (home: string): Record<string, string> => ({
    FERMIX_HOME: home,
    HOME: root,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.baseUrl,
    PATH: "/usr/bin:/bin",
  });
  const homes: Record<string, string> = {};
  for (const mode of ["down", "up"] as const) {
    for (const c of ["a", "b", "c"] as const) {
      const home = join(root, `${mode}-${c}`);
      await mkdir(home, { recursive: true, mode: 0o700 });
      await writeFile(join(home, "config.toml"), config[c]);
      homes[`${mode}-${c}`] = home;
    }
  }

  const oneShot = await interleaved((c) => ask(envFor(homes[`down-${c}`]!)));
  for (const c of ["a", "b", "c"] as const) {
    const daemon = await startUntilReady(
      [binary, "run"],
      { env: envFor(homes[`up-${c}`]!), cwd: root },
      "listening on",
    );
    daemons.push(daemon.stop);
  }
  const throughDaemon = await interleaved((c) => ask(envFor(homes[`up-${c}`]!)));

  console.log(`fermix (${binary}), ${runs} interleaved runs per case after ${WARMUP} warm-up rounds`);
  console.log("times are spawn→exit wall time of `fermix ask ping`");
  console.log();
  report("one-shot (no daemon)", oneShot, { b: TARGET.oneShot });
  report("through the daemon", throughDaemon, { b: TARGET.daemon, c: TARGET.daemon });
} finally {
  for (const stop of daemons) await stop().catch(() => {});
  await fake.close();
  await rm(root, { recursive: true, force: true });
}

async function writePlugin(dir: string, name: string, args: string[]) {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(
    join(dir, name, "plugin.json"),
    JSON.stringify({
      schema_version: 2,
      name,
      display_name: name,
      description: `The ${name} bench plugin.`,
      category: "developer",
      version: "1.0.0",
      min_core_version: "0.1.0",
      plugin_api: 2,
      runtime: { kind: "node", command: "node", args },
      config: [{ key: "MODE", prompt: "silent or normal" }],
      tools: [{ name: `${name}_echo`, description: "Echo a message.", read_only: true, rail: "mcp" }],
    }),
  );
}

function ask(env: Record<string, string>): Promise<Run> {
  return timeRun([binary, "ask", "ping"], { env, cwd: root }).then((run) => {
    if (run.code !== 0 || run.stdout.trim() !== "pong")
      throw new Error(`ask exited ${run.code} printing ${JSON.stringify(run.stdout)}:\n${run.stderr}`);
    return run;
  });
}

/** Runs the three cases round-robin: warm-up rounds first, then `runs` measured rounds. */
async function interleaved(once: (c: Case) => Promise<Run>): Promise<Record<Case, Stats>> {
  const times: Record<Case, number[]> = { a: [], b: [], c: [] };
  for (let round = 0; round < WARMUP + runs; round++) {
    for (const c of ["a", "b", "c"] as const) {
      const run = await once(c);
      if (round >= WARMUP) times[c].push(run.ms);
    }
  }
  return { a: stats(times.a), b: stats(times.b), c: stats(times.c) };
}

function report(title: string, result: Record<Case, Stats>, targets: Partial<Record<Case, number>>) {
  console.log(title);
  for (const c of ["a", "b", "c"] as const) {
    const s = result[c];
    const ratio = s.median / result.a.median;
    const target = targets[c];
    const verdict = target === undefined ? "" : `target ≤ ${target}×  ${ratio <= target ? "PASS" : "MISS"}`;
    console.log(
      [
        `  ${LABEL[c].padEnd(24)}`,
        `median ${s.median.toFixed(1).padStart(6)} ms`,
        `p90 ${s.p90.toFixed(1).padStart(6)} ms`,
        `${ratio.toFixed(2)}× (a)`.padEnd(10),
        verdict,
      ]
        .join("  ")
        .trimEnd(),
    );
  }
  console.log();
}
