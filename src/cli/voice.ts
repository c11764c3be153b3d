import { processEnv } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { resolveSecret } from "../config/secrets.ts";
import { type VoiceState, voiceState } from "../doctor/voice-check.ts";
import { defineCommand } from "./command.ts";
import { connectDaemon } from "./daemon-client.ts";
import { answerQuery } from "./query.ts";

/** What `fermix voice status` reports (facts: CLI verbs, `voice status`); the JSON keeps the facts' field names. */
export type VoiceReport = {
  daemon: "online" | "offline";
  realtime: VoiceState & {
    /** This build has no bridge, so no socket is listened on and no companion connects. */
    socket: null;
    companion_connected: false;
    "openai_api_key_present?": boolean;
  };
};

const MISSING_KEY = "MISSING — Realtime needs an OpenAI sk- key (Codex OAuth won't authorize it)";
const NO_BRIDGE = "none (this build has no voice companion bridge)";

export default defineCommand({
  meta: {
    name: "voice",
    description: "Show the voice companion's state: config, Realtime key, daemon",
    details:
      "The OpenAI Realtime voice companion ([fermix_core.realtime]) is off by default. This build has no companion bridge: with enabled = true it says so rather than listening on realtime.sock.",
    examples: ["fermix voice status", "fermix voice status --json | jq .result.realtime"],
  },
  default: "status",
  subCommands: {
    status: defineCommand({
      meta: { name: "status", description: "Whether voice is on, its provider, model and key, and the daemon" },
      args: { json: { type: "boolean", description: "print the typed JSON envelope" } },
      run: ({ args }) => answerQuery({ json: args.json === true, query: voiceReport, render: renderVoice }),
    }),
  },
});

async function voiceReport(): Promise<VoiceReport> {
  const env = processEnv();
  const paths = fermixPaths(resolveHome(env));
  const config = await loadConfig(paths.config);
  const state = voiceState(config);
  // Any failure to reach the daemon is "offline": the rest of the report is config.toml's, read here.
  const online = await connectDaemon()
    .client.health()
    .then(
      () => true,
      () => false,
    );
  const keyPresent = state.enabled && realtimeKeyPresent(config, env, paths.secrets);
  return {
    daemon: online ? "online" : "offline",
    realtime: { ...state, socket: null, companion_connected: false, "openai_api_key_present?": keyPresent },
  };
}

/** Realtime takes an OpenAI Platform key (sk-…), the OpenAI chat provider's slot; a ChatGPT sign-in does not do. */
function realtimeKeyPresent(config: Config, env: ReturnType<typeof processEnv>, secretsDir: string): boolean {
  const ref = config.fermix_core?.providers?.openai?.api_key ?? "$OPENAI_API_KEY";
  try {
    const key = resolveSecret(ref, "OPENAI_API_KEY", { env, secretsDir, profile: config.fermix_core?.profile });
    return key.startsWith("sk-");
  } catch {
    return false;
  }
}

export function renderVoice(report: VoiceReport): string {
  const r = report.realtime;
  const key = !r.enabled ? "n/a (disabled)" : r["openai_api_key_present?"] ? "present" : MISSING_KEY;
  return [
    `fermix voice: ${r.status}`,
    `daemon: ${report.daemon}`,
    `enabled: ${r.enabled}`,
    `provider: ${r.provider}`,
    `model: ${r.model}`,
    `realtime key: ${key}`,
    `socket: ${NO_BRIDGE}`,
    "companion connected: no",
    "",
  ].join("\n");
}
