/**
 * How much does the gateway add when many chats talk at once? Starts `fermix run` with [fermix_channels.telegram]
 * on the fake Bot API (test/fake/telegram-bot-api.ts) and a fake OpenAI Responses model that answers every request
 * after 500 ms, then, in the same run:
 *   1. the floor: the same model request fermix sends, 200 times at once, straight from the bench to the fake
 *      model (each read to its end) — what 200 model calls cost with no fermix in between;
 *   2. 200 conversations at once: one message from each of 200 allow-listed users in their own chats, pushed in one
 *      batch of updates; timed from the push to the last of the 200 replies arriving at the Bot API.
 * The owner (9999) warms up first. Targets (the channels issue): wall ≤ 2× the floor; the daemon's RSS after the burst ≤ 1.5× its RSS before it.
 * Then a second burst (RSS only: a leak would grow it again), and the idle RSS of a daemon with no channel enabled,
 * for comparison with bench/daemon-rss.ts (run warm here: the page cache is not dropped).
 *
 *   bun bench/gateway.ts [--binary PATH] [--conversations N] [--model-ms MS]
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type FakeLlm, startFakeOpenAIResponses } from "../test/fake/llm.ts";
import { startFakeTelegram, textMessage } from "../test/fake/telegram-bot-api.ts";
import { benchBinary, startUntilReady } from "./_measure.ts";

const KEY = "sk-bench-gateway-0123456789";
const TARGET = { wallOverFloor: 2, rssGrowth: 1.5 };

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    binary: { type: "string" },
    conversations: { type: "string", default: "200" },
    "model-ms": { type: "string", default: "500" },
  },
});
const binary = benchBinary(flags.binary);
const N = Number(flags.conversations);
const MODEL_MS = Number(flags["model-ms"]);
const REPLY = "pong";
/** Users 10001… each in their own private chat (chat id = user id), all allow-listed as guests. */
const users = Array.from({ length: N }, (_, i) => 10_001 + i);

const root = await mkdtemp(join(tmpdir(), "fxg-"));
const llm = await startFakeOpenAIResponses({ apiKey: KEY });
llm.setDefault({ kind: "delay", ms: MODEL_MS, reply: { kind: "text", text: REPLY } });
const telegram = await startFakeTelegram();
const stops: Array<() => Promise<unknown>> = [];
try {
  const idle = await idleRssWithoutChannels();

  const env = await homeWith(
    "telegram",
    [
      "[fermix_channels.telegram]",
      "enabled = true",
      "owner_user_id = 9999",
      `allowed_user_ids = [${users.join(", ")}]`,
      `bot_token = "${telegram.token}"`,
      `api_base_url = "${telegram.baseUrl}"`,
    ].join("\n"),
  );
  const daemon = await startUntilReady([binary, "run"], { env, cwd: root }, "listening on");
  stops.push(daemon.stop);
  const pid = daemonPid(env.FERMIX_HOME);
  await telegram.waitForCall("getUpdates", (c) => Number(c.params.timeout) > 0);

  // One conversation first: page cache, JIT, memory.db created — and the request fermix sends, for the floor.
  await converse([9_999], "warm up");
  await settled();
  const before = memory(pid);
  const request = llm.requests.at(-1)!;

  const floor = await floorWall(llm, request.body);
  const wall = await converse(users, "hello");
  await settled();
  const after = memory(pid);

  // A second burst: memory that keeps growing burst after burst would be a leak, not a working set.
  await converse(users, "again");
  await settled();
  const second = memory(pid);

  const ratio = wall / floor;
  const growth = after.total / before.total;
  console.log(`fermix gateway: ${N} conversations at once through the fake Bot API, model answers in ${MODEL_MS} ms`);
  console.log(`  floor (${N} model requests straight to the fake)  ${fmt(floor)}`);
  console.log(
    `  ${N} conversations, push → last reply           ${fmt(wall)}  ${(ratio).toFixed(2)}× the floor  target ≤ ${TARGET.wallOverFloor}×  ${ratio <= TARGET.wallOverFloor ? "PASS" : "MISS"}`,
  );
  console.log(`  daemon RSS before the burst   ${before}`);
  console.log(
    `  daemon RSS after the burst    ${after}  ${growth.toFixed(2)}× before  target ≤ ${TARGET.rssGrowth}×  ${growth <= TARGET.rssGrowth ? "PASS" : "MISS"}`,
  );
  console.log(`  daemon RSS after a second burst ${second}`);
  console.log(`  (idle daemon, no channel enabled: ${idle}; telegram enabled, before the burst: ${before})`);
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await telegram.close();
  await llm.close();
  await rm(root, { recursive: true, force: true });
}

/** Pushes one message from each user in one batch and resolves with the ms until every one of them is answered. */
async function converse(from: number[], text: string): Promise<number> {
  const since = Date.now();
  const replies = from.map((id) =>
    telegram.waitForCall(
      "sendMessage",
      (c) => c.at >= since && String(c.params.chat_id) === String(id) && String(c.params.text).includes(REPLY),
    ),
  );
  const t0 = performance.now();
  telegram.pushUpdate(...from.map((id) => textMessage({ fromId: id, chatId: id, text: `${text} ${id}` })));
  await Promise.all(replies);
  return performance.now() - t0;
}

/** The same request fermix sent, `N` at once from here, each streamed to its end. */
async function floorWall(fake: FakeLlm, body: unknown): Promise<number> {
  const json = JSON.stringify(body);
  const t0 = performance.now();
  await Promise.all(
    users.map(async () => {
      const response = await fetch(`${fake.baseUrl}/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: json,
      });
      const text = await response.text();
      if (!response.ok || !text.includes(REPLY)) throw new Error(`floor request failed: HTTP ${response.status}`);
    }),
  );
  return performance.now() - t0;
}

/** A daemon with no channel enabled, after boot: what the channels must not cost when they are off. */
async function idleRssWithoutChannels(): Promise<Memory> {
  const env = await homeWith("plain", "");
  const daemon = await startUntilReady([binary, "run"], { env, cwd: root }, "listening on");
  try {
    await settled();
    return memory(daemonPid(env.FERMIX_HOME));
  } finally {
    await daemon.stop();
  }
}

type Env = { FERMIX_HOME: string; HOME: string; OPENAI_API_KEY: string; OPENAI_BASE_URL: string; PATH: string };

async function homeWith(name: string, toml: string): Promise<Env> {
  const home = join(root, name);
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFile(join(home, "config.toml"), `[fermix_core.tools.tool_search]\nenabled = false\n\n${toml}\n`);
  return {
    FERMIX_HOME: home,
    HOME: root,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.baseUrl,
    PATH: "/usr/bin:/bin",
  };
}

/** Lets the daemon's timers and collector have a turn after a burst (RSS is read, not raced). */
function settled(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 500));
}

type Memory = { total: number; toString(): string };

function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (key: string) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0) / 1024;
  const m = { total: mb("VmRSS"), anon: mb("RssAnon"), file: mb("RssFile") };
  return {
    total: m.total,
    toString: () => `${m.total.toFixed(1)} MB (anonymous ${m.anon.toFixed(1)}, file-backed ${m.file.toFixed(1)})`,
  };
}

function daemonPid(home: string): number {
  return Number(readFileSync(join(home, "daemon.lock"), "utf8").trim());
}

function fmt(ms: number): string {
  return `${ms.toFixed(0).padStart(5)} ms`;
}
