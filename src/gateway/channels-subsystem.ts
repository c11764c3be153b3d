import type { TurnInput, TurnResult } from "../agent/turn.ts";
import type { Caller } from "../capabilities/caller.ts";
import { enabledChannels } from "../channels/registry.ts";
import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";
import type { SecretRef } from "../config/sections/secret-ref.ts";
import type { MessageStore } from "../memory/messages-contract.ts";
import type { Log } from "../observability/log.ts";
import type { Traces } from "../observability/traces.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { defineSubsystem } from "../subsystem.ts";
import { CANNED } from "./canned-replies.ts";
import type { ChannelsRuntime } from "./channels-runtime-contract.ts";
import type { SlashRequest } from "./gateway.ts";
import type { SlashAnswer } from "./slash/command.ts";

export type ChannelsDeps = {
  config: Config;
  liveConfig: () => Config;
  env: Env;
  fetch: typeof fetch;
  log: Log;
  now: () => number;
  traces: Traces;
  store: MessageStore;
  db: () => SqlDatabase;
  /** Channel tokens and transcription keys; each is redacted from logs like a provider key. */
  resolveSecret(ref: SecretRef, slot: string): string;
  /** One turn in its conversation's lane (the turn runner's ask). */
  ask(input: TurnInput & { caller: Caller }): Promise<TurnResult>;
  slash(request: SlashRequest): Promise<SlashAnswer | undefined>;
  /** /stop also ends this process's /background work. */
  stopBackground(): number;
};

/**
 * The daemon's chat channels behind the gateway, started at boot when config.toml enables any (their code loads
 * only then); each channel starts beside the daemon with a bounded wait, and one that fails is a state, not a stop.
 */
export const channelsSubsystem = defineSubsystem({
  name: "channels",
  wanted: (deps: ChannelsDeps) => enabledChannels(deps.config).length > 0,
  load: async (deps: ChannelsDeps): Promise<ChannelsRuntime> => {
    const [{ createGateway }, { createChannelsRuntime }, { createTranscriber }, { createInboundStore }, dedupe] =
      await Promise.all([
        import("./gateway.ts"),
        import("./channels-runtime.ts"),
        import("../media/transcription/transcriber.ts"),
        import("../memory/inbound.ts"),
        import("./webhooks/dedupe.ts"),
      ]);
    const log = deps.log.withTag("channels");
    const inbound = createInboundStore(deps.db(), deps.now);
    // Voice notes become text before the turn.
    const media = createTranscriber({
      config: deps.liveConfig,
      env: deps.env,
      log,
      fetch: deps.fetch,
      resolveSecret: deps.resolveSecret,
    });
    const gateway = createGateway({
      ask: deps.ask,
      slash: deps.slash,
      stopBackground: deps.stopBackground,
      markStopped: (conversation, text, ids) =>
        deps.store.commitTurn(
          conversation,
          [
            { role: "user", content: [{ type: "text", text }] },
            { role: "assistant", content: [{ type: "text", text: CANNED.stoppedMarker }] },
          ],
          { turnId: "stopped", answers: { ids, as: "stopped" } },
        ),
      // What the owner sends is stored before the platform hears it arrived (issue 26).
      inbound,
      media,
      traces: deps.traces,
      log,
      now: deps.now,
    });
    return createChannelsRuntime({
      config: deps.config,
      env: deps.env,
      gateway,
      resolveSecret: (ref, slot) => deps.resolveSecret(ref as SecretRef, slot),
      log,
      now: deps.now,
      dedupe: dedupe.createDurableDedupe(deps.db(), { now: deps.now }),
      cursors: {
        load: (channel) => inbound.cursor(channel),
        save: (channel, value) => inbound.saveCursor(channel, value),
      },
    });
  },
  start: (runtime) => runtime.start(),
  startFailed: (err, deps) => deps.log.withTag("channels").error(`channels did not start: ${err.message}`),
  stop: (runtime) => runtime.stop(),
  status: (runtime) => {
    const troubled = runtime.status().filter((c) => c.state === "failed" || c.state === "refused" || c.degraded);
    if (!troubled.length) return { state: "running" };
    return {
      state: "degraded",
      detail: troubled.map((c) => `${c.name}: ${c.reason ?? c.degraded ?? c.state}`).join("; "),
    };
  },
});
