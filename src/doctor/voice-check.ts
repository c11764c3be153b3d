import type { Config } from "../config/schema.ts";
import { REALTIME_DEFAULT_MODEL, REALTIME_PROVIDERS } from "../config/sections/realtime.ts";
import { defineCheck, skippedForConfig } from "./check.ts";

const ID = "voice";

/** What this build says of a voice companion config.toml turns on: it has no bridge to offer one. */
export const NO_VOICE_BRIDGE = "enabled in config, but this build has no voice companion bridge";

/** [fermix_core.realtime] as `fermix voice status` and this row report it. */
export type VoiceState = {
  status: "off" | typeof NO_VOICE_BRIDGE;
  enabled: boolean;
  provider: string;
  model: string;
  screen_share: boolean;
};

export function voiceState(config: Config | undefined): VoiceState {
  const section = config?.fermix_core?.realtime;
  const enabled = section?.enabled === true;
  return {
    status: enabled ? NO_VOICE_BRIDGE : "off",
    enabled,
    provider: section?.provider ?? REALTIME_PROVIDERS[0],
    model: section?.model ?? REALTIME_DEFAULT_MODEL,
    screen_share: section?.screen_share !== false,
  };
}

/** The voice companion (spec: self-knowledge.md, "Voice"): off, or turned on in a build that cannot serve it. */
export const voiceCheck = defineCheck({
  id: ID,
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig(ID, ID)];
    const state = voiceState(ctx.config);
    if (!state.enabled) return [{ id: ID, title: ID, status: "ok", detail: "off" }];
    return [
      {
        id: ID,
        title: ID,
        status: "warn",
        detail: state.status,
        fix: "set [fermix_core.realtime] enabled = false in config.toml, or use a build with the voice companion",
      },
    ];
  },
});
