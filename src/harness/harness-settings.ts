import type { Config } from "../config/schema.ts";
import { HARNESS_DEFAULTS } from "./harness-types.ts";

export type HarnessSettings = {
  maxActive: number;
  timeoutMinutes: number;
  inactivityMinutes: number;
  promptMaxKb: number;
  maxEventBytes: number;
  maxFramingErrors: number;
  /** Tries at delivering a finished run's result before it is recorded as failed. */
  deliveryMaxAttempts: number;
  /** A result still undelivered this long after its run ended is recorded as failed instead of tried again. */
  deliveryMaxAgeHours: number;
};

/** [fermix_core.harness] with its defaults filled in; read again for each run, so an edit applies to the next. */
export function harnessSettings(config: Config): HarnessSettings {
  const h = config.fermix_core?.harness ?? {};
  return {
    maxActive: h.max_active ?? HARNESS_DEFAULTS.maxActive,
    timeoutMinutes: h.default_timeout_minutes ?? HARNESS_DEFAULTS.defaultTimeoutMinutes,
    inactivityMinutes: h.inactivity_minutes ?? HARNESS_DEFAULTS.inactivityMinutes,
    promptMaxKb: h.prompt_argv_max_kb ?? HARNESS_DEFAULTS.promptArgvMaxKb,
    maxEventBytes: h.max_event_bytes ?? HARNESS_DEFAULTS.maxEventBytes,
    maxFramingErrors: h.max_framing_errors ?? HARNESS_DEFAULTS.maxFramingErrors,
    deliveryMaxAttempts: h.delivery_max_attempts ?? HARNESS_DEFAULTS.deliveryMaxAttempts,
    deliveryMaxAgeHours: h.delivery_max_age_hours ?? HARNESS_DEFAULTS.deliveryMaxAgeHours,
  };
}
