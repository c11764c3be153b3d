/**
 * A fake `signal-cli`, run as a program (test/fake/signal-cli.ts writes the wrapper script cli_path points at).
 * It speaks what the real one speaks, from signal-cli-jsonrpc(5) and its sources (AsamK/signal-cli 0.14.x):
 *
 *   signal-cli [-c|--config|-d|--data-dir DIR] [-a ACCOUNT] [-o json] <command>
 *     --version          → "signal-cli 0.14.6"
 *     -o json listAccounts → [{"number":"+1…"}]
 *     -a ACCOUNT jsonRpc → JSON-RPC 2.0, one object per line: requests on stdin, responses and `receive`
 *                          notifications on stdout; exits at the end of stdin (unless told to linger).
 *   An account that is not registered: "User +1… is not registered." on stderr, exit 1 (App.loadManager).
 *
 * Methods: version, send, sendReaction, sendTyping. The test may have the next request of a method answered with a
 * line of its own (a broken answer: not JSON, a non-object result, no id) to play a signal-cli that breaks protocol. Stricter than signal-cli, which ignores params it does not
 * know: here an unknown or mistyped param is an INVALID_PARAMS error, so a typo fails a test instead of being
 * dropped. The errors are signal-cli's: -32700 parse, -32600 invalid request, -32601 "Method not implemented",
 * -1 user errors ("No recipients given", "Failed to send message" with data.response.results), -5 rate limited.
 *
 * The test drives it over a loopback TCP socket, FAKE_SIGNAL_CONTROL (host:port), one JSON object a line: it is told the envelopes to deliver (attachments
 * are written under <data dir>/attachments/<id> first, as signal-cli downloads them before notifying) and errors
 * to answer with, and it reports every request with its answer and any attachment it decoded.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import * as v from "valibot";

const VERSION = "0.14.6";
const env = process.env;
const argv = process.argv.slice(2);

type Options = { dataDir?: string; account?: string; output?: string; command?: string; rest: string[] };

function parseArgs(args: string[]): Options {
  const opts: Options = { rest: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => {
      const next = args[++i];
      if (next === undefined) usage(`argument ${arg}: expected one argument`);
      return next!;
    };
    if (opts.command) opts.rest.push(arg);
    else if (["-c", "--config", "-d", "--data-dir"].includes(arg)) opts.dataDir = value();
    else if (["-a", "--account", "-u", "--username"].includes(arg)) opts.account = value();
    else if (["-o", "--output"].includes(arg)) opts.output = value();
    else if (arg === "--version") {
      process.stdout.write(`signal-cli ${VERSION}\n`);
      process.exit(0);
    } else if (arg.startsWith("-")) usage(`unrecognized arguments: '${arg}'`);
    else opts.command = arg;
  }
  return opts;
}

function usage(message: string): never {
  process.stderr.write(
    `usage: signal-cli [-h] [--version] [-v] [--config CONFIG] [-a ACCOUNT] [-o {plain-text,json}] {…} …\nsignal-cli: error: ${message}\n`,
  );
  process.exit(2);
}

const opts = parseArgs(argv);
const accounts = (env.FAKE_SIGNAL_ACCOUNTS ?? "").split(",").filter(Boolean);
const dataDir =
  opts.dataDir ?? join(env.XDG_DATA_HOME || join(env.HOME ?? "/nonexistent", ".local", "share"), "signal-cli");

if (opts.command === "listAccounts") {
  if (opts.output !== "json") usage("the fake answers listAccounts with -o json only");
  process.stdout.write(`${JSON.stringify(accounts.map((number) => ({ number })))}\n`);
  process.exit(0);
}
if (opts.command !== "jsonRpc") usage(`argument command: invalid choice: '${opts.command ?? ""}'`);
if (opts.rest.length) usage(`unrecognized arguments: '${opts.rest.join(" ")}'`);
if (!opts.account) usage("the fake runs jsonRpc for one account only (-a ACCOUNT)");
if (!accounts.includes(opts.account!)) {
  process.stderr.write(`User ${opts.account} is not registered.\n`);
  process.exit(1);
}
const account = opts.account!;

// ---- the control channel ----

type Envelope = Record<string, unknown>;
type Control = { seq: number } & (
  | { type: "receive"; envelope: Envelope; files?: Array<{ id: string; base64: string }> }
  | { type: "fail-next"; method: string; error: { code: number; message: string; data?: unknown } }
  | { type: "raw-next"; method: string; line: string }
  | { type: "unregistered"; numbers: string[] }
);

const failures = new Map<string, Array<{ code: number; message: string; data?: unknown }>>();
/** Lines to answer the next requests of a method with, as given (`$ID` becomes the request's id): broken answers. */
const rawAnswers = new Map<string, string[]>();
let unregistered = new Set<string>();
const [host, port] = env.FAKE_SIGNAL_CONTROL!.split(":");
const socket = connect({ host: host!, port: Number(port) });
const report = (event: Record<string, unknown>) => socket.write(`${JSON.stringify(event)}\n`);

createInterface({ input: socket, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
  const control = JSON.parse(line) as Control;
  if (control.type === "receive") {
    for (const file of control.files ?? []) {
      mkdirSync(join(dataDir, "attachments"), { recursive: true });
      writeFileSync(join(dataDir, "attachments", file.id), Buffer.from(file.base64, "base64"));
    }
    write({ jsonrpc: "2.0", method: "receive", params: { envelope: control.envelope, account } });
  } else if (control.type === "fail-next") {
    failures.set(control.method, [...(failures.get(control.method) ?? []), control.error]);
  } else if (control.type === "raw-next") {
    rawAnswers.set(control.method, [...(rawAnswers.get(control.method) ?? []), control.line]);
  } else if (control.type === "unregistered") {
    unregistered = new Set(control.numbers);
  }
  // In force from now on: the test may send the request that meets it.
  report({ type: "ack", seq: control.seq });
});
socket.on("close", () => process.exit(0));

function write(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

// ---- JSON-RPC ----

const Address = v.pipe(
  v.string(),
  v.regex(
    /^(\+[1-9]\d{5,17}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|u:.+)$/i,
    "an E.164 number, a UUID or u:username",
  ),
);
const Recipients = v.union([Address, v.array(Address)]);
const Files = v.union([v.string(), v.array(v.string())]);

const PARAMS = {
  version: v.optional(v.strictObject({})),
  send: v.strictObject({
    recipient: v.optional(Recipients),
    message: v.optional(v.string()),
    attachment: v.optional(Files),
    attachments: v.optional(Files),
    voiceNote: v.optional(v.boolean()),
    viewOnce: v.optional(v.boolean()),
    notifySelf: v.optional(v.boolean()),
    quoteTimestamp: v.optional(v.pipe(v.number(), v.integer())),
    quoteAuthor: v.optional(Address),
  }),
  sendReaction: v.strictObject({
    recipient: v.optional(Recipients),
    emoji: v.pipe(v.string(), v.minLength(1)),
    targetAuthor: v.optional(Address),
    targetTimestamp: v.pipe(v.number(), v.integer(), v.minValue(1)),
    remove: v.optional(v.boolean()),
    notifySelf: v.optional(v.boolean()),
  }),
  sendTyping: v.strictObject({ recipient: v.optional(Recipients), stop: v.optional(v.boolean()) }),
} as const;
type Method = keyof typeof PARAMS;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

let clock = Date.now();
const timestamp = () => (clock = Math.max(clock + 1, Date.now()));
const list = (x: string | string[] | undefined) => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

/** RFC 2397 as signal-cli's DataURI reads it, filename parameter URL-decoded; else a path that must exist. */
function decodeAttachment(value: string): { mime: string; filename?: string; base64: string } {
  const match = /^data:(?<type>.+?\/.+?)?(?<parameters>;.+?=.+?)?(?<base64>;base64)?,(?<data>.+)$/is.exec(value);
  if (!match?.groups) {
    try {
      return {
        mime: "application/octet-stream",
        filename: value.split("/").at(-1),
        base64: readFileSync(value).toString("base64"),
      };
    } catch {
      throw new RpcError(-32603, `Failed to send message: ${value} (NoSuchFileException)`);
    }
  }
  const { type, parameters, base64, data } = match.groups;
  if (!base64) throw new RpcError(-1, "the fake takes base64 data URIs only");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data!))
    throw new RpcError(-32603, "Illegal base64 character (IllegalArgumentException)");
  const filename = /;filename=([^;]+)/.exec(parameters ?? "")?.[1];
  return { mime: type ?? "text/plain", ...(filename ? { filename: decodeURIComponent(filename) } : {}), base64: data! };
}

function results(recipients: string[]) {
  return recipients.map((r) => ({
    recipientAddress: r.startsWith("+") ? { uuid: null, number: r } : { uuid: r, number: null },
    type: unregistered.has(r) ? "UNREGISTERED_FAILURE" : "SUCCESS",
  }));
}

function call(method: Method, params: any): { result: unknown; files?: unknown[] } {
  if (method === "version") return { result: { version: VERSION } };
  const recipients = list(params.recipient);
  if (!recipients.length) throw new RpcError(-1, "No recipients given");
  if (method === "sendTyping") return { result: {} };
  const sent = { timestamp: timestamp(), results: results(recipients) };
  if (sent.results.every((r) => r.type !== "SUCCESS")) {
    throw new RpcError(-1, "Failed to send message", { response: sent });
  }
  if (method === "sendReaction") return { result: sent };
  const files = [...list(params.attachment), ...list(params.attachments)].map(decodeAttachment);
  if (!params.message && !files.length) {
    throw new RpcError(
      -1,
      "Sending empty message is not allowed, either a message, attachment or sticker must be given.",
    );
  }
  return { result: sent, files };
}

function handle(line: string): void {
  let request: any;
  try {
    request = JSON.parse(line);
  } catch (err) {
    write({ jsonrpc: "2.0", error: { code: -32700, message: (err as Error).message, data: null }, id: null });
    return;
  }
  const id = request?.id ?? null;
  const answer = (outcome: {
    result?: unknown;
    error?: { code: number; message: string; data: unknown };
    files?: unknown[];
  }) => {
    const { files, ...body } = outcome;
    write({ jsonrpc: "2.0", ...body, id });
    report({ type: "call", method: request?.method, params: request?.params, id, ...body, files: files ?? [] });
  };
  if (request?.jsonrpc !== "2.0" || typeof request.method !== "string") {
    answer({ error: { code: -32600, message: "method field must be set", data: null } });
    return;
  }
  if (!(request.method in PARAMS)) {
    answer({ error: { code: -32601, message: "Method not implemented", data: null } });
    return;
  }
  const method = request.method as Method;
  const checked = v.safeParse(PARAMS[method], request.params);
  if (!checked.success) {
    const issue = checked.issues[0];
    answer({
      error: {
        code: -32602,
        message: `Invalid params: ${v.getDotPath(issue) ?? "params"}: ${issue.message}`,
        data: null,
      },
    });
    return;
  }
  const raw = rawAnswers.get(method)?.shift();
  if (raw !== undefined) {
    const line = raw.replaceAll("$ID", JSON.stringify(id));
    process.stdout.write(`${line}\n`);
    report({ type: "call", method, params: request.params, id, raw: line, files: [] });
    return;
  }
  const scripted = failures.get(method)?.shift();
  if (scripted) {
    answer({ error: { data: null, ...scripted } });
    return;
  }
  try {
    answer(call(method, checked.output ?? {}));
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    answer({ error: { code: err.code, message: err.message, data: err.data } });
  }
}

socket.on("connect", () => {
  // Which variables it was given (not their values): what the daemon lets through to signal-cli.
  const envKeys = Object.keys(env).filter((k) => !k.startsWith("FAKE_SIGNAL_"));
  report({ type: "hello", pid: process.pid, argv, account, dataDir, envKeys });
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on("line", (line) => {
    if (line.trim()) handle(line);
  });
  // signal-cli ends with its input; FAKE_SIGNAL_LINGER plays one whose shutdown hangs (the reaper's case).
  lines.on("close", () => {
    if (env.FAKE_SIGNAL_LINGER !== "1") process.exit(0);
  });
});
