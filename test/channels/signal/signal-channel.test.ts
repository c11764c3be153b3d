import { describe, expect, test } from "bun:test";
import type { ChannelAdapter, InboundMessage } from "../../../src/channels/channel.ts";
import { oneOffDeps } from "../../../src/channels/registry.ts";
import { createSignalChannel } from "../../../src/channels/signal/signal-channel.ts";
import { startFakeSignalCli } from "../../fake/signal-cli.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";

/*
 * The adapter against the fake signal-cli, without a daemon: what its JSON-RPC errors become, and the child's
 * states as health() and check() report them. Waits on the fake's calls and on the adapter's own log lines.
 */

const ACCOUNT = "+15550000001";
const OWNER = "+15551110001";
const defer = cleanupAfterEach();

function adapterFor(config: Record<string, unknown>, env: Record<string, string | undefined> = {}) {
  const lines: string[] = [];
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const log = (line: string) => {
    lines.push(line);
    for (const w of waiters.splice(0)) (line.includes(w.text) ? w.resolve : () => waiters.push(w))();
  };
  const adapter = createSignalChannel(
    oneOffDeps({
      config: { enabled: true, owner_user_id: OWNER, ...config },
      resolveSecret: () => "",
      log: { info: log, warn: log, error: log },
      now: Date.now,
      env: { PATH: "/usr/bin:/bin", HOME: process.env.HOME, ...env },
    }),
  );
  defer(() => adapter.stop());
  /** Resolves once the adapter has logged a line containing `text`. */
  const logged = (text: string) =>
    lines.some((l) => l.includes(text))
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ text, resolve }));
  return { adapter, logged, lines };
}

async function running(env: Record<string, string> = {}) {
  const fake = await startFakeSignalCli({ account: ACCOUNT });
  defer(() => fake.close());
  const { adapter, logged } = adapterFor({ account: ACCOUNT, cli_path: fake.cliPath }, env);
  const received: InboundMessage[] = [];
  await adapter.start((m) => void received.push(m));
  await fake.waitForStart(1);
  await fake.waitForCall("version");
  return { fake, adapter, received, logged };
}

describe("the Signal adapter", () => {
  test("signal-cli gets only what it needs from the environment: no provider key", async () => {
    const { fake } = await running({ OPENAI_API_KEY: "sk-not-for-signal", JAVA_HOME: "/opt/java" });
    expect(fake.starts[0]!.envKeys).toContain("JAVA_HOME");
    expect(fake.starts[0]!.envKeys).toContain("HOME");
    expect(fake.starts[0]!.envKeys).not.toContain("OPENAI_API_KEY");
  });

  test("a rate-limited send carries signal-cli's wait; a send to an unregistered number says so", async () => {
    const { fake, adapter } = await running();
    const response = {
      timestamp: 5,
      results: [{ recipientAddress: { uuid: null, number: OWNER }, type: "RATE_LIMIT_FAILURE", retryAfterSeconds: 7 }],
    };
    await fake.failNext("send", {
      code: -5,
      message: "Failed to send message due to rate limiting",
      data: { response },
    });
    await expect(adapter.send({ chatId: OWNER }, { markdown: "hi" })).rejects.toMatchObject({
      code: "signal_rate_limited",
      data: { rpcCode: -5, retryAfter: 7 },
    });
    await fake.unregistered([OWNER]);
    await expect(adapter.send({ chatId: OWNER }, { markdown: "hi" })).rejects.toMatchObject({
      code: "signal_send_refused",
      message: `signal-cli send: Failed to send message (UNREGISTERED_FAILURE for ${OWNER})`,
    });
  });

  test("a send answered with a non-object result fails at once, naming send, and the next reply goes out", async () => {
    const { fake, adapter, logged } = await running();
    await fake.answerNextWith("send", '{"jsonrpc":"2.0","result":"sent","id":$ID}');
    // Not the 30 s timeout's signal_cli_unavailable: the answer itself failed the send.
    await expect(adapter.send({ chatId: OWNER }, { markdown: "first" })).rejects.toMatchObject({
      code: "signal_protocol_error",
      message: "signal-cli gave a malformed answer to send: its result is a string, not an object",
      data: { method: "send" },
    });
    await logged("signal-cli: a malformed answer to send (request ");
    const [second] = await adapter.send({ chatId: OWNER }, { markdown: "second" });
    await fake.waitForCall("send", (c) => c.params.message === "second");
    const sent = fake.calls.filter((c) => c.method === "send");
    expect(sent.map((c) => c.params.message)).toEqual(["first", "second"]);
    expect(sent[0]!.raw).toContain('"result":"sent"');
    expect(second!.id).toBe(String(sent[1]!.result.timestamp));
    expect(adapter.health().connected).toBe(true);
  });

  test("an answer that is not JSON, or has no id, fails the waiting send at once too", async () => {
    const { fake, adapter } = await running();
    await fake.answerNextWith("send", "Exception in thread main: not JSON");
    await expect(adapter.send({ chatId: OWNER }, { markdown: "one" })).rejects.toMatchObject({
      code: "signal_protocol_error",
      message:
        "signal-cli gave a malformed answer to send: a line that is not JSON (Exception in thread main: not JSON)",
    });
    await fake.answerNextWith("sendReaction", '{"jsonrpc":"2.0","result":{"timestamp":5}}');
    await expect(adapter.react!({ chatId: OWNER }, "1700000000000", "👍")).rejects.toMatchObject({
      code: "signal_protocol_error",
      message: "signal-cli gave a malformed answer to sendReaction: an answer without a usable id",
    });
    await fake.answerNextWith("send", '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}');
    await expect(adapter.send({ chatId: OWNER }, { markdown: "two" })).rejects.toMatchObject({
      message:
        "signal-cli gave a malformed answer to send: an answer without a usable id (its error -32700: Parse error)",
    });
    const [three] = await adapter.send({ chatId: OWNER }, { markdown: "three" });
    const call = await fake.waitForCall("send", (c) => c.params.message === "three");
    expect(three!.id).toBe(String(call.result.timestamp));
  });

  test("an account signal-cli does not have: restarting, with signal-cli's own words as the reason", async () => {
    const fake = await startFakeSignalCli({ account: ACCOUNT, registered: [] });
    defer(() => fake.close());
    const { adapter, logged } = adapterFor({ account: ACCOUNT, cli_path: fake.cliPath });
    await adapter.start(() => {});
    await logged("starting it again");
    expect(adapter.health()).toMatchObject({
      connected: false,
      degraded: `signal-cli is restarting: it exited with code 1: User ${ACCOUNT} is not registered.`,
    });
    await expect(adapter.send({ chatId: OWNER }, { markdown: "hi" })).rejects.toMatchObject({
      code: "signal_cli_unavailable",
      data: { transient: true },
    });
  });

  test("no signal-cli: start succeeds, health says it is not installed, check gives the install hint", async () => {
    const { adapter } = adapterFor({ account: ACCOUNT, cli_path: "/nowhere/signal-cli" });
    await adapter.start(() => {});
    expect(adapter.health()).toEqual({
      connected: false,
      degraded:
        "signal-cli is not installed: signal-cli is not at /nowhere/signal-cli (cli_path), or is not executable — install it (https://github.com/AsamK/signal-cli#installation) or set cli_path",
    });
    const check = await adapter.check();
    expect(check).toMatchObject({
      ok: false,
      detail: "signal-cli is not at /nowhere/signal-cli (cli_path), or is not executable",
    });
    expect(check.ok === false && check.fix).toStartWith("install signal-cli");
    expect(() => adapterFor({})).toThrow("the Signal channel is enabled but has no account");
  });

  test("stop ends signal-cli; requests after it are refused as not transient", async () => {
    const { fake, adapter } = await running();
    const pid = fake.starts[0]!.pid;
    await adapter.stop();
    expect(() => process.kill(pid, 0)).toThrow();
    await expect((adapter as ChannelAdapter).typing!({ chatId: OWNER })).rejects.toMatchObject({
      code: "signal_cli_unavailable",
      data: { transient: false },
    });
  });
});
