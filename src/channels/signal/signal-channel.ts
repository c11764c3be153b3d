import * as v from "valibot";
import type { OutboundFile } from "../../capabilities/channel-reply.ts";
import type { SignalConfig } from "../../config/sections/channels.ts";
import { defineError } from "../../error.ts";
import type { ChannelAdapter, ChannelDeps, ChatTarget, InboundMessage, SentMessage } from "../channel.ts";
import { parseReceive } from "./parse-envelope.ts";
import { markdownToPlain } from "./plain-text.ts";
import { signalChunks } from "./reply-chunks.ts";
import { DEFAULT_CLI_PATH, findSignalCli, INSTALL_HINT, jsonRpcSpec, notFound } from "./signal-cli-command.ts";
import { createSignalCli, SignalRpcError } from "./signal-cli-process.ts";
import { MAX_SIGNAL_ATTACHMENT_BYTES, readStoredAttachment, signalDataDir } from "./stored-attachment.ts";

export const SignalNotConfigured = defineError("signal_not_configured");
/** signal-cli refused a send: `rate_limited` with the wait it gave, or the recipient's failure. */
export const SignalSendRefused = defineError<{ rpcCode: number; retryAfter?: number }>("signal_send_refused");
export const SignalRateLimited = defineError<{ rpcCode: number; retryAfter?: number }>("signal_rate_limited");

const SHORT_INSTALL_HINT = "install it (https://github.com/AsamK/signal-cli#installation) or set cli_path";
const STATE_WORDS = {
  starting: "is starting",
  running: "is running",
  restarting: "is restarting",
  missing: "is not installed",
  stopped: "is stopped",
} as const;
const SETUP_HINT = "run `fermix setup --channel signal`, or set account in [fermix_channels.signal]";
const FILE_SEND_TIMEOUT_MS = 300_000;
/** signal-cli's JSON-RPC error code for a send the server rate-limited (SignalJsonRpcCommandHandler). */
const RATE_LIMIT_ERROR = -5;

/** What send and sendReaction answer: the sent message's timestamp, which is its id on Signal. */
const SendResult = v.object({ timestamp: v.number() });

/**
 * The Signal adapter. Signal has no bot API: fermix speaks for an account registered or linked in signal-cli,
 * through one long-lived `signal-cli -a ACCOUNT jsonRpc` child (signal-cli-process.ts) rather than a process per
 * poll. Incoming messages are its `receive` notifications (parse-envelope.ts, one-to-one chats only); replies are
 * Markdown rendered to plain text and cut to Signal's 2,000-byte body (plain-text.ts, reply-chunks.ts); files go
 * as data URIs, reactions with sendReaction. Attachments that arrive are read where signal-cli stored them.
 */
export function createSignalChannel(deps: ChannelDeps): ChannelAdapter {
  const config = deps.config as SignalConfig;
  const env = deps.env;
  // SIGNAL_ACCOUNT, SIGNAL_CLI_PATH and SIGNAL_ALLOWED_SENDER_IDS are already laid over the table (env-overlay.ts).
  const account = config.account?.trim();
  if (!account) {
    throw SignalNotConfigured(
      `the Signal channel is enabled but has no account (the number registered or linked in signal-cli): ${SETUP_HINT}`,
    );
  }
  const cliPath = config.cli_path || DEFAULT_CLI_PATH;
  const dataDir = signalDataDir(config.data_dir, env);
  const known = new Set([
    ...(config.owner_user_id ? [config.owner_user_id] : []),
    ...(config.allowed_sender_ids ?? []),
  ]);
  let ingest: (message: InboundMessage) => void = () => {};
  let lastUpdateAt: number | undefined;

  const cli = createSignalCli({
    spec: () => {
      const spec = jsonRpcSpec({ cliPath, account, dataDir: config.data_dir, env });
      return typeof spec === "string" ? `${spec} — ${SHORT_INSTALL_HINT}` : spec;
    },
    log: deps.log,
    now: deps.now,
    onNotification(method, params) {
      if (method !== "receive") return;
      lastUpdateAt = deps.now();
      const parsed = parseReceive(params, {
        known,
        readAttachment: (id, maxBytes) => readStoredAttachment(dataDir, id, maxBytes),
      });
      if (parsed.kind === "message") ingest(parsed.message);
      else if (parsed.why) deps.log.info(`signal: ignored ${parsed.why}`);
    },
  });

  const sendOne = async (method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<SentMessage> => {
    try {
      const result = v.parse(SendResult, await cli.request(method, params, { timeoutMs }));
      return { id: String(result.timestamp) };
    } catch (err) {
      throw refused(err);
    }
  };

  return {
    name: "signal",
    capabilities: {
      editMessages: false,
      // Any emoji: Signal has no fixed reaction set.
      reactions: [],
      approveButtons: false,
      maxUploadBytes: MAX_SIGNAL_ATTACHMENT_BYTES,
    },
    async start(handler) {
      ingest = handler;
      // Never fails: signal-cli missing or exiting is a state with its reason (health), retried with backoff.
      cli.start();
    },
    stop: () => cli.stop(),
    revive(raw) {
      const parsed = parseReceive(raw, {
        known,
        readAttachment: (id, maxBytes) => readStoredAttachment(dataDir, id, maxBytes),
      });
      return parsed.kind === "message" ? parsed.message : undefined;
    },
    async send(target, text) {
      const sent: SentMessage[] = [];
      // Chunks go strictly in order; a failed one stops the rest.
      for (const chunk of signalChunks(markdownToPlain(text.markdown))) {
        sent.push(await sendOne("send", { recipient: [target.chatId], message: chunk }));
      }
      return sent;
    },
    sendFile: (target, file) =>
      sendOne(
        "send",
        {
          recipient: [target.chatId],
          ...(file.caption ? { message: markdownToPlain(file.caption) } : {}),
          attachments: [dataUri(file)],
          ...(file.kind === "voice" ? { voiceNote: true } : {}),
        },
        // signal-cli answers once the upload is done: up to 100 MB is not a text message's 30 s.
        FILE_SEND_TIMEOUT_MS,
      ),
    async react(target, messageId, emoji) {
      // One-to-one: the message answered was written by the person in the chat.
      await sendOne("sendReaction", {
        recipient: [target.chatId],
        emoji,
        targetAuthor: target.chatId,
        targetTimestamp: Number(messageId),
      });
    },
    async typing(target: ChatTarget) {
      await cli.request("sendTyping", { recipient: [target.chatId] }, { timeoutMs: 10_000 });
    },
    health() {
      const status = cli.status();
      const seen = Math.max(status.lastSeenAt ?? 0, lastUpdateAt ?? 0);
      return {
        connected: status.state === "running",
        ...(seen ? { lastUpdateAt: seen } : {}),
        ...(status.state !== "running" && status.reason
          ? { degraded: `signal-cli ${STATE_WORDS[status.state]}: ${status.reason}` }
          : {}),
      };
    },
    async check() {
      const found = findSignalCli(cliPath, env);
      if (!found) return { ok: false, detail: notFound(cliPath), fix: INSTALL_HINT };
      return { ok: true, detail: `account ${account} through ${found}` };
    },
  };
}

/** RFC 2397 with signal-cli's filename parameter (URL-escaped: it decodes it); signal-cli 0.10.10+ reads these. */
function dataUri(file: OutboundFile): string {
  const name = encodeURIComponent(file.filename);
  return `data:${file.mime};filename=${name};base64,${Buffer.from(file.bytes).toString("base64")}`;
}

/** A JSON-RPC refusal as a FermixError job delivery can act on: a rate limit says how long to wait. */
function refused(err: unknown): unknown {
  if (!SignalRpcError.is(err)) return err;
  const { rpcCode, rpcData } = err.data;
  if (rpcCode === RATE_LIMIT_ERROR) {
    const retryAfter = retryAfterOf(rpcData);
    return SignalRateLimited(err.message, { rpcCode, ...(retryAfter ? { retryAfter } : {}) });
  }
  return SignalSendRefused(`${err.message}${failuresOf(rpcData)}`, { rpcCode });
}

/** Why each recipient failed, as signal-cli lists it: " (UNREGISTERED_FAILURE for +1555…)". */
function failuresOf(data: unknown): string {
  type Result = { type?: unknown; recipientAddress?: { number?: unknown; uuid?: unknown } };
  const results = (data as { response?: { results?: Result[] } })?.response?.results ?? [];
  const failed = results
    .filter((r) => typeof r.type === "string" && r.type !== "SUCCESS")
    .map((r) => `${r.type} for ${r.recipientAddress?.number ?? r.recipientAddress?.uuid ?? "?"}`);
  return failed.length ? ` (${failed.join(", ")})` : "";
}

/** The longest retryAfterSeconds among the per-recipient results signal-cli puts in the error's data. */
function retryAfterOf(data: unknown): number | undefined {
  const results = (data as { response?: { results?: Array<{ retryAfterSeconds?: unknown }> } })?.response?.results;
  const waits = (results ?? []).map((r) => r.retryAfterSeconds).filter((s): s is number => typeof s === "number");
  return waits.length ? Math.max(...waits) : undefined;
}
