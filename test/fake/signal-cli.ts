import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

/**
 * The test's side of the fake signal-cli (test/fake/signal-cli-process.ts): a loopback TCP socket (JSON lines) the
 * fake program connects to when it starts, and the executable script `cli_path` points at. The test delivers envelopes as
 * signal-cli's `receive` notifications, scripts errors, and reads every JSON-RPC call the daemon made with the
 * fake's answer — nothing is mocked inside fermix; the daemon runs the script as it would run signal-cli.
 */

export type SignalFile = { mime: string; filename?: string; bytes: Uint8Array };

export type SignalCall = {
  method: string;
  params: Record<string, any>;
  id: number | string | null;
  result?: any;
  error?: { code: number; message: string; data: unknown };
  /** The line the fake answered with instead, when the test scripted one (answerNextWith). */
  raw?: string;
  /** Attachments of a send, decoded as signal-cli decodes them. */
  files: SignalFile[];
};

export type SignalStart = { pid: number; argv: string[]; account: string; dataDir: string; envKeys: string[] };

export type FakeSignalCli = {
  /** The executable script: cli_path. */
  readonly cliPath: string;
  readonly account: string;
  readonly calls: SignalCall[];
  readonly starts: SignalStart[];
  /** Resolves with the first call (made or coming) of `method` that matches. */
  waitForCall(method: string, predicate?: (call: SignalCall) => boolean): Promise<SignalCall>;
  /** Resolves once the fake has been started `n` times (the first start: 1). */
  waitForStart(n?: number): Promise<SignalStart>;
  /** Delivers an envelope to the running fake (its attachments stored first); returns the message's timestamp. */
  receive(message: IncomingMessage): number;
  /** The next request of `method` is answered with this error; resolves once the fake has it. */
  failNext(method: string, error: { code: number; message: string; data?: unknown }): Promise<void>;
  /**
   * The next request of `method` is answered with this line as it stands, `$ID` replaced by the request's id (a
   * protocol fault: `{"jsonrpc":"2.0","result":"ok","id":$ID}`, a line that is not JSON…); resolves once in force.
   */
  answerNextWith(method: string, line: string): Promise<void>;
  /** Sends to these numbers fail the way Signal fails them (UNREGISTERED_FAILURE); resolves once in force. */
  unregistered(numbers: string[]): Promise<void>;
  close(): Promise<void>;
};

export type IncomingMessage = {
  from: string;
  /** A number-less sender (the number hidden): only the UUID is given. */
  uuid?: string;
  name?: string;
  text?: string;
  /** A group message (groupInfo set). */
  group?: string;
  attachments?: Array<{ contentType: string; bytes: Uint8Array; filename?: string }>;
  /** A reaction the sender put on one of fermix's messages. */
  reaction?: { emoji: string; targetAuthor: string; targetSentTimestamp: number };
};

const PROCESS = resolve(import.meta.dir, "signal-cli-process.ts");

export async function startFakeSignalCli(
  options: { account?: string; registered?: string[]; linger?: boolean } = {},
): Promise<FakeSignalCli> {
  const account = options.account ?? "+15550000001";
  const registered = options.registered ?? [account];
  const dir = mkdtempSync(join(tmpdir(), "fake-signal-"));
  const calls: SignalCall[] = [];
  const starts: SignalStart[] = [];
  const callWaiters: Array<{
    method: string;
    predicate: (c: SignalCall) => boolean;
    resolve: (c: SignalCall) => void;
  }> = [];
  const startWaiters: Array<{ n: number; resolve: (s: SignalStart) => void }> = [];
  let current: Socket | undefined;
  let clock = Date.now() - 60_000;
  let counter = 0;
  let seq = 0;
  const acks = new Map<number, () => void>();

  const onEvent = (event: any) => {
    if (event.type === "hello") {
      const start: SignalStart = {
        pid: event.pid,
        argv: event.argv,
        account: event.account,
        dataDir: event.dataDir,
        envKeys: event.envKeys,
      };
      starts.push(start);
      for (const w of startWaiters.splice(0).filter((w) => !settleStart(w))) startWaiters.push(w);
    } else if (event.type === "ack") {
      acks.get(event.seq)?.();
      acks.delete(event.seq);
    } else if (event.type === "call") {
      const call: SignalCall = {
        method: event.method,
        params: event.params ?? {},
        id: event.id,
        ...(event.result !== undefined ? { result: event.result } : {}),
        ...(event.error ? { error: event.error } : {}),
        ...(event.raw !== undefined ? { raw: event.raw } : {}),
        files: (event.files ?? []).map((f: { mime: string; filename?: string; base64: string }) => ({
          mime: f.mime,
          ...(f.filename ? { filename: f.filename } : {}),
          bytes: new Uint8Array(Buffer.from(f.base64, "base64")),
        })),
      };
      calls.push(call);
      for (let i = callWaiters.length - 1; i >= 0; i--) {
        const w = callWaiters[i]!;
        if (w.method === call.method && w.predicate(call)) {
          callWaiters.splice(i, 1);
          w.resolve(call);
        }
      }
    }
  };

  // The newest fake process to connect is the one the test talks to (a restarted one replaces the last).
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    current = socket;
    sockets.add(socket);
    createInterface({ input: socket, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) =>
      onEvent(JSON.parse(line)),
    );
    socket.on("error", () => {});
    socket.on("close", () => {
      sockets.delete(socket);
      if (current === socket) current = undefined;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const settleStart = (w: { n: number; resolve: (s: SignalStart) => void }) => {
    if (starts.length < w.n) return false;
    w.resolve(starts[w.n - 1]!);
    return true;
  };

  const cliPath = join(dir, "signal-cli");
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(
    cliPath,
    [
      "#!/bin/sh",
      `FAKE_SIGNAL_CONTROL=${quote(`127.0.0.1:${port}`)} FAKE_SIGNAL_ACCOUNTS=${quote(registered.join(","))} FAKE_SIGNAL_LINGER=${options.linger ? 1 : 0} exec ${quote(process.execPath)} ${quote(PROCESS)} "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(cliPath, 0o755);

  const send = (message: Record<string, unknown>): Promise<void> => {
    if (!current) throw new Error("the fake signal-cli is not running");
    const n = ++seq;
    const acked = new Promise<void>((resolve) => acks.set(n, resolve));
    current.write(`${JSON.stringify({ ...message, seq: n })}\n`);
    return acked;
  };

  return {
    cliPath,
    account,
    calls,
    starts,
    waitForCall(method, predicate = () => true) {
      const done = calls.find((c) => c.method === method && predicate(c));
      if (done) return Promise.resolve(done);
      return new Promise((resolve) => callWaiters.push({ method, predicate, resolve }));
    },
    waitForStart(n = 1) {
      return new Promise((resolve) => {
        const w = { n, resolve };
        if (!settleStart(w)) startWaiters.push(w);
      });
    },
    receive(message) {
      clock = Math.max(clock + 1, Date.now());
      const timestamp = clock;
      const files = (message.attachments ?? []).map((a) => {
        const extension = a.filename?.includes(".") ? a.filename.slice(a.filename.lastIndexOf(".")) : "";
        return { ...a, id: `fakeAttachment${++counter}${extension}` };
      });
      const envelope = {
        source: message.from,
        sourceNumber: message.uuid ? null : message.from,
        sourceUuid: message.uuid ?? uuidOf(message.from),
        sourceName: message.name ?? "Someone",
        sourceDevice: 1,
        timestamp,
        serverReceivedTimestamp: timestamp + 5,
        serverDeliveredTimestamp: timestamp + 9,
        dataMessage: {
          timestamp,
          message: message.text ?? null,
          expiresInSeconds: 0,
          viewOnce: false,
          ...(message.reaction
            ? {
                reaction: {
                  ...message.reaction,
                  targetAuthorNumber: message.reaction.targetAuthor,
                  targetAuthorUuid: null,
                  isRemove: false,
                },
              }
            : {}),
          ...(files.length
            ? {
                attachments: files.map((f) => ({
                  contentType: f.contentType,
                  filename: f.filename ?? null,
                  id: f.id,
                  size: f.bytes.byteLength,
                  width: null,
                  height: null,
                  caption: null,
                  uploadTimestamp: timestamp - 1,
                })),
              }
            : {}),
          ...(message.group
            ? { groupInfo: { groupId: message.group, groupName: "Friends", revision: 3, type: "DELIVER" } }
            : {}),
        },
      };
      void send({
        type: "receive",
        envelope,
        files: files.map((f) => ({ id: f.id, base64: Buffer.from(f.bytes).toString("base64") })),
      });
      return timestamp;
    },
    failNext: (method, error) => send({ type: "fail-next", method, error }),
    answerNextWith: (method, line) => send({ type: "raw-next", method, line }),
    unregistered: (numbers) => send({ type: "unregistered", numbers }),
    async close() {
      for (const start of starts) {
        try {
          process.kill(start.pid, "SIGKILL");
        } catch {}
      }
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A stable UUID per number, as Signal gives every account one. */
export function uuidOf(number: string): string {
  return `00000000-0000-4000-8000-${number.replace(/\D/g, "").padStart(12, "0").slice(-12)}`;
}
