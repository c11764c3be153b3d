import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { type FakeSignalCli, type SignalCall, startFakeSignalCli } from "../fake/signal-cli.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * The Signal channel end to end: the compiled daemon runs the fake signal-cli (cli_path) as its long-lived
 * `jsonRpc` child and answers with a fake model. Everything waits on a call or a start the fakes record.
 */

const KEY = "sk-test-signal-0123456789abcdef";
const ACCOUNT = "+15550000001";
const OWNER = "+15551110001";
const GUEST = "+15552220002";
const STRANGER = "+15553330003";
const defer = cleanupAfterEach();
const encoder = new TextEncoder();

async function setup(options: { config?: string[]; linger?: boolean } = {}) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const signal = await startFakeSignalCli({ account: ACCOUNT, linger: options.linger });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => signal.close());
  h.writeConfig(
    [
      "[fermix_channels.signal]",
      "enabled = true",
      `account = "${ACCOUNT}"`,
      `cli_path = "${signal.cliPath}"`,
      // A bare TOML integer loses the "+": the schema puts it back.
      `owner_user_id = ${OWNER}`,
      `allowed_sender_ids = ["${GUEST}"]`,
      'streaming = "off"',
      ...(options.config ?? []),
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  await answering(signal, 1);
  return { h, llm, signal, env, daemon };
}

/** The n-th start of the fake, once it has answered the daemon's readiness probe (`version`). */
async function answering(signal: FakeSignalCli, n: number) {
  const start = await signal.waitForStart(n);
  await signal.waitForCall("version", (c) => signal.calls.filter((v) => v.method === "version").indexOf(c) === n - 1);
  return start;
}

/** The next `send` to `to` after now (create it before whatever causes it). */
function nextSend(signal: FakeSignalCli, to: string, predicate: (c: SignalCall) => boolean = () => true) {
  const mark = signal.calls.length;
  return signal.waitForCall(
    "send",
    (c) => signal.calls.indexOf(c) >= mark && c.params.recipient?.includes(to) && predicate(c),
  );
}

const sends = (signal: FakeSignalCli, to: string) =>
  signal.calls.filter((c) => c.method === "send" && c.params.recipient?.includes(to));

describe("Signal through the compiled daemon", () => {
  test("the owner gets the model's answer as plain text, after a typing indicator", async () => {
    const { llm, signal } = await setup();
    expect(signal.starts[0]!.argv).toEqual(["-a", ACCOUNT, "jsonRpc"]);
    llm.setDefault({ kind: "text", text: "Hello **owner**, see [the docs](https://example.com/a_b)." });
    const reply = nextSend(signal, OWNER);
    signal.receive({ from: OWNER, name: "Owner", text: "hi fermix" });
    const sent = await reply;
    expect(sent.error).toBeUndefined();
    expect(sent.params).toEqual({
      recipient: [OWNER],
      message: "Hello owner, see the docs (https://example.com/a_b).",
    });
    expect(sent.result.results[0].type).toBe("SUCCESS");
    expect(signal.calls.find((c) => c.method === "sendTyping")!.params).toEqual({ recipient: [OWNER] });
    expect(llm.requests).toHaveLength(1);
    expect(JSON.stringify(llm.requests[0]!.body.input)).toContain("hi fermix");
  });

  test("a stranger gets nothing and reaches no model; a guest is answered with the guest surface only", async () => {
    const { llm, signal, h } = await setup();
    llm.setDefault({ kind: "text", text: "Hi guest." });
    const reply = nextSend(signal, GUEST);
    // Notifications are read in order: the stranger's is dropped before the guest's is looked at.
    signal.receive({ from: STRANGER, text: "stranger here" });
    signal.receive({ from: GUEST, text: "guest here" });
    expect((await reply).params.message).toBe("Hi guest.");
    expect(sends(signal, STRANGER)).toEqual([]);
    expect(signal.calls.filter((c) => c.method === "sendTyping" && c.params.recipient.includes(STRANGER))).toEqual([]);
    expect(llm.requests).toHaveLength(1);
    const body = llm.requests[0]!.body;
    expect(JSON.stringify(body.input)).not.toContain("stranger here");
    const tools: string[] = (body.tools ?? []).map((t: { name: string }) => t.name);
    for (const name of ["shell", "file_read", "file_write", "web_fetch", "web_search", "request_directory_access"]) {
      expect(tools).not.toContain(name);
    }
    expect(readFileSync(join(h.home, "logs", "fermix.log"), "utf8")).toContain(`dropped a message from ${STRANGER}`);
  });

  test("a group message is ignored, even from the owner: one-to-one chats only", async () => {
    const { llm, signal, h } = await setup();
    llm.setDefault({ kind: "text", text: "Only this." });
    const reply = nextSend(signal, OWNER);
    signal.receive({ from: OWNER, text: "in the group", group: "Z3JvdXAtaWQtMTIzNDU2Nzg5MA==" });
    signal.receive({ from: OWNER, text: "just to you" });
    expect((await reply).params.message).toBe("Only this.");
    expect(llm.requests).toHaveLength(1);
    expect(JSON.stringify(llm.requests[0]!.body.input)).not.toContain("in the group");
    expect(sends(signal, OWNER)).toHaveLength(1);
    expect(readFileSync(join(h.home, "logs", "fermix.log"), "utf8")).toContain(
      `ignored a group message from ${OWNER} (fermix answers one-to-one chats only)`,
    );
  });

  test("a long answer goes as ordered messages of at most 2,000 UTF-8 bytes, Markdown rendered plain", async () => {
    const { llm, signal } = await setup();
    const paragraphs = Array.from(
      { length: 12 },
      (_, i) => `**Teil ${i + 1}.** ${"Grüße aus Köln — naïve café, ünïcödé 😀 words. ".repeat(12).trim()}`,
    );
    const answer = paragraphs.join("\n\n");
    expect(encoder.encode(answer).length).toBeGreaterThan(8000);
    llm.setDefault({ kind: "text", text: answer });
    const last = nextSend(signal, OWNER, (c) => String(c.params.message).includes("Teil 12."));
    signal.receive({ from: OWNER, text: "write a lot" });
    await last;
    const chunks = sends(signal, OWNER).map((c) => c.params.message as string);
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    for (const chunk of chunks) expect(encoder.encode(chunk).length).toBeLessThanOrEqual(2000);
    expect(chunks.join("\n\n")).toBe(answer.replace(/\*\*/g, ""));
    expect(sends(signal, OWNER).every((c) => c.error === undefined)).toBe(true);
  });

  test("a reaction: the model's react reaches sendReaction aimed at the owner's message, and ends the turn", async () => {
    const { llm, signal } = await setup();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "react", arguments: { emoji: "🦊" } }] });
    const reacted = signal.waitForCall("sendReaction");
    const timestamp = signal.receive({ from: OWNER, text: "thanks, that's all" });
    const call = await reacted;
    expect(call.params).toEqual({ recipient: [OWNER], emoji: "🦊", targetAuthor: OWNER, targetTimestamp: timestamp });
    expect(call.result.timestamp).toBeGreaterThan(0);
    // Signal takes any emoji: the tool's parameter is not an enum.
    const react = llm.requests[0]!.body.tools.find((t: { name: string }) => t.name === "react");
    expect(react.parameters.properties.emoji.enum).toBeUndefined();
    expect(llm.requests).toHaveLength(1);
    expect(sends(signal, OWNER)).toEqual([]);
  });

  test("a reply signal-cli answers with a malformed result fails at once; the chat's next reply goes out", async () => {
    const { llm, signal, env } = await setup();
    // Each answer names the message it answers, so the replies can be told apart.
    llm.setDefault((req) => ({
      kind: "text",
      text: `Answer to ${JSON.stringify(req.body.input).includes("second") ? "second" : "first"}.`,
    }));
    await signal.answerNextWith("send", '{"jsonrpc":"2.0","result":"sent","id":$ID}');
    const broken = nextSend(signal, OWNER, (c) => c.raw !== undefined);
    const next = nextSend(signal, OWNER, (c) => c.params.message === "Answer to second.");
    signal.receive({ from: OWNER, text: "first" });
    expect((await broken).params.message).toBe("Answer to first.");
    signal.receive({ from: OWNER, text: "second" });
    // Without the fail-fast this waits behind the first send's 30 s timeout (past this test's own).
    const sent = await next;
    expect(sent.error).toBeUndefined();
    const log = readFileSync(join(env.FERMIX_HOME, "logs", "fermix.log"), "utf8");
    expect(log).toContain("signal-cli: a malformed answer to send (request ");
    expect(log).toContain("its result is a string, not an object");
  }, 20_000);

  test("signal-cli killed: the daemon starts it again and messages flow; channels status shows the restart", async () => {
    const { llm, signal, env } = await setup();
    llm.setDefault({ kind: "text", text: "Still here." });
    const first = signal.starts[0]!;
    process.kill(first.pid, "SIGKILL");
    const second = await answering(signal, 2);
    expect(second.pid).not.toBe(first.pid);
    expect(second.argv).toEqual(["-a", ACCOUNT, "jsonRpc"]);
    const reply = nextSend(signal, OWNER);
    signal.receive({ from: OWNER, text: "are you there?" });
    expect((await reply).params.message).toBe("Still here.");

    const status = await runFermix(["channels", "status", "--json"], { env });
    const channel = JSON.parse(status.stdout).result.channels.find((c: { name: string }) => c.name === "signal");
    expect(channel).toMatchObject({ state: "running", connected: true, degraded: null });
    const log = readFileSync(join(env.FERMIX_HOME, "logs", "fermix.log"), "utf8");
    expect(log).toContain("signal-cli: it was ended by SIGKILL; starting it again in 1 s");
  }, 30_000);

  test("a SIGKILLed daemon's signal-cli is reaped by the next daemon, which starts its own", async () => {
    const { signal, env, daemon } = await setup({ linger: true });
    const orphan = signal.starts[0]!.pid;
    process.kill(daemon.pid, "SIGKILL");
    await daemon.stop();
    // This signal-cli outlives its input (a hung shutdown): without the reaper it would run on, unowned.
    expect(alive(orphan)).toBe(true);
    const next = await startFermixDaemon(env);
    defer(() => next.stop());
    expect(alive(orphan)).toBe(false);
    const second = await answering(signal, 2);
    expect(second.pid).not.toBe(orphan);
    expect(await next.stop()).toBe(0);
    // Stopping the daemon ends its signal-cli, lingering or not.
    expect(alive(second.pid)).toBe(false);
  }, 30_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie no one has waited for yet is as good as gone.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
