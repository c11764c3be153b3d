import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createJobStore } from "../../src/jobs/job-store.ts";
import { openDatabase } from "../../src/memory/db.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeSignalCli } from "../fake/signal-cli.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";
import { draft } from "../jobs/_fixture.ts";

/*
 * The operations side of the Signal channel through the compiled binary: a missing signal-cli as a doctor row and a
 * channel state (the daemon runs on), the live state of a running one, the SIGNAL_* overlays, `fermix setup
 * --channel signal` against the fake signal-cli, and a job delivered to signal:<number>.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-signal-cli-0123456789";
const ACCOUNT = "+15550000001";
const OWNER = "+15551110001";
const GUEST = "+15552220002";

type Row = { id: string; status: string; detail: string; fix?: string };

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return { h, env: { FERMIX_HOME: h.home, HOME: h.userHome } as Record<string, string> };
}

async function signalRow(env: Record<string, string>): Promise<Row> {
  const r = await runFermix(["doctor", "--json"], { env });
  return (JSON.parse(r.stdout).result.rows as Row[]).find((x) => x.id === "channels.signal")!;
}

async function signalState(env: Record<string, string>) {
  const r = await runFermix(["channels", "status", "--json"], { env });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).result.channels.find((c: { name: string }) => c.name === "signal");
}

describe("a missing signal-cli", () => {
  test("is a doctor row with the install hint and a channel state with the reason; the daemon runs on", async () => {
    const { h, env } = home();
    h.writeConfig(
      ["[fermix_channels.signal]", "enabled = true", `account = "${ACCOUNT}"`, `owner_user_id = "${OWNER}"`, ""].join(
        "\n",
      ),
    );
    const offline = await signalRow(env);
    expect(offline.status).toBe("fail");
    expect(offline.detail).toBe("signal: signal-cli is not on PATH; the daemon is not running");
    expect(offline.fix).toStartWith("install signal-cli (https://github.com/AsamK/signal-cli#installation");

    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    expect(await signalState(env)).toEqual({
      name: "signal",
      enabled: true,
      state: "running",
      connected: false,
      last_update_at: null,
      degraded:
        "signal-cli is not installed: signal-cli is not on PATH — install it (https://github.com/AsamK/signal-cli#installation) or set cli_path",
      reason: null,
    });
    const row = await signalRow(env);
    expect(row.status).toBe("fail");
    expect(row.detail).toStartWith(
      "signal: signal-cli is not on PATH; degraded in the daemon: signal-cli is not installed",
    );
    expect(row.fix).toContain("install signal-cli");
    expect((await runFermix(["status"], { env })).code).toBe(0);
    expect(await daemon.stop()).toBe(0);
  });
});

describe("a running Signal channel", () => {
  test("doctor and channels status show it connected; SIGNAL_* overlay the table; a job delivers to signal:<number>", async () => {
    const { h, env } = home();
    const signal = await startFakeSignalCli({ account: ACCOUNT });
    defer(() => signal.close());
    const llm = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => llm.close());
    // Only the owner in config.toml: the account, where signal-cli is and the guest come from the environment.
    h.writeConfig(
      ["[fermix_channels.signal]", "enabled = true", `owner_user_id = "${OWNER}"`, 'streaming = "off"', ""].join("\n"),
    );
    const full = {
      ...env,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: llm.baseUrl,
      SIGNAL_ACCOUNT: ACCOUNT,
      SIGNAL_CLI_PATH: signal.cliPath,
      SIGNAL_ALLOWED_SENDER_IDS: ` ${GUEST} ,`,
    };
    const daemon = await startFermixDaemon(full);
    defer(() => daemon.stop());
    await signal.waitForStart(1);
    await signal.waitForCall("version");
    expect(signal.starts[0]!.argv).toEqual(["-a", ACCOUNT, "jsonRpc"]);

    const text = await runFermix(["channels", "status"], { env: full });
    expect(text.stdout).toMatch(/^signal\tenabled\trunning\tconnected\t/);
    const row = await signalRow(full);
    expect(row.status).toBe("ok");
    expect(row.detail).toStartWith(
      `signal: account ${ACCOUNT} through ${signal.cliPath}; running in the daemon, connected`,
    );

    llm.enqueue({ kind: "text", text: "Hello, guest." });
    signal.receive({ from: GUEST, text: "may I?" });
    await signal.waitForCall("send", (c) => c.params.recipient[0] === GUEST && c.params.message === "Hello, guest.");

    const jobId = seedJob(h, OWNER);
    llm.enqueue({ kind: "text", text: "Your **digest**: all quiet." });
    expect((await runFermix(["jobs", "run", jobId], { env: full })).code).toBe(0);
    const sent = await signal.waitForCall("send", (c) => c.params.recipient[0] === OWNER);
    expect(sent.params).toEqual({ recipient: [OWNER], message: "Your digest: all quiet." });
    const runs = await waitForDelivery(full, jobId);
    expect(runs[0]).toMatchObject({ status: "ok", delivery_status: "sent" });
  });
});

describe("fermix setup --channel signal", () => {
  test("asks signal-cli for its accounts, then enables the channel; an account it lacks writes nothing", async () => {
    const { h, env } = home();
    const signal = await startFakeSignalCli({ account: ACCOUNT });
    defer(() => signal.close());
    const config = join(h.home, "config.toml");
    const missing = await runFermix(
      [
        "setup",
        "--channel",
        "signal",
        "--account",
        "+15559990009",
        "--owner-user-id",
        OWNER,
        "--cli-path",
        signal.cliPath,
        "--yes",
      ],
      { env },
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`has no account +15559990009; it has ${ACCOUNT}`);
    expect(missing.stderr).toContain("signal-cli link -n fermix");
    expect(existsSync(config)).toBe(false);

    const absent = await runFermix(
      [
        "setup",
        "--channel",
        "signal",
        "--account",
        ACCOUNT,
        "--owner-user-id",
        OWNER,
        "--cli-path",
        "/nowhere/signal-cli",
      ],
      { env },
    );
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain("install signal-cli (https://github.com/AsamK/signal-cli#installation");

    const same = await runFermix(
      ["setup", "--channel", "signal", "--account", ACCOUNT, "--owner-user-id", ACCOUNT, "--cli-path", signal.cliPath],
      { env },
    );
    expect(same.code).toBe(2);
    expect(same.stderr).toContain("the owner and the account are the same number");

    const ok = await runFermix(
      [
        "setup",
        "--channel",
        "signal",
        "--account",
        ACCOUNT,
        "--owner-user-id",
        "+1 (555) 111-0001",
        "--cli-path",
        signal.cliPath,
        "--yes",
      ],
      { env },
    );
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`ok: signal-cli at ${signal.cliPath} has the account ${ACCOUNT}\n`);
    expect(readFileSync(config, "utf8")).toBe(
      `[fermix_channels.signal]\nenabled = true\naccount = "${ACCOUNT}"\nowner_user_id = "${OWNER}"\ncli_path = "${signal.cliPath}"\n`,
    );
    // The same answers again: nothing to change.
    const again = await runFermix(["setup", "--channel", "signal", "--yes"], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already holds these answers; unchanged");
  });
});

/** A job delivering to a Signal chat, written into memory.db as the job tools write it (never due by itself). */
function seedJob(h: TempHome, chat: string): string {
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(h.home, "memory.db"));
  const store = createJobStore(db, Date.now);
  const job = store.create(
    draft({ name: "digest", deliveryMode: "channel", deliveryTarget: { platform: "signal", chat_id: chat } }),
    { nextRunAt: Date.parse("2099-01-01T08:00:00Z"), trust: "operator", createdIn: { channel: "cli", chat: "s" } },
  );
  db.close();
  return job.id;
}

/** The job's runs once the newest has left `pending` delivery (the send follows the answer). */
async function waitForDelivery(env: Record<string, string>, jobId: string) {
  for (;;) {
    const r = await runFermix(["jobs", "runs", jobId, "--json"], { env });
    const runs = JSON.parse(r.stdout).result.runs;
    if (runs[0] && runs[0].delivery_status !== "pending" && runs[0].status !== "running") return runs;
  }
}
