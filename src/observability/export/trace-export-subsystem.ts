import type { Env } from "../../config/env.ts";
import type { Config } from "../../config/schema.ts";
import type { SecretDeps } from "../../config/secrets.ts";
import { defineSubsystem } from "../../subsystem.ts";
import type { Log } from "../log.ts";
import type { TraceExport } from "./trace-export.ts";

export type TraceExportDeps = {
  env: Env;
  config: Config;
  secrets: SecretDeps;
  fetch: typeof fetch;
  log: Log;
};

/**
 * Opik / OTLP export beside the trace files: off unless asked for, loaded only then, in every role (a one-shot ask
 * exports its turn too). A bad setting is logged and leaves export off; it never stops the program.
 */
export const traceExportSubsystem = defineSubsystem({
  name: "trace-export",
  wanted: (deps: TraceExportDeps) =>
    deps.env.FERMIX_OPIK_ENABLED === "1" || deps.config.fermix_core?.observability?.otlp_enabled === true,
  async load(deps: TraceExportDeps): Promise<{ exporter?: TraceExport; problem?: string }> {
    const { planTraceExport, createTraceExport } = await import("./trace-export.ts");
    const log = deps.log.withTag("traces");
    try {
      const plan = planTraceExport(deps.env, deps.config, deps.secrets);
      return { exporter: createTraceExport(plan, { fetch: deps.fetch, log }) };
    } catch (err) {
      const problem = `trace export is off: ${(err as Error).message}`;
      log.error(problem);
      return { problem };
    }
  },
  // Last to stop: whatever the stopping work traced still goes out, for at most the export timeout.
  stop: async (api) => api.exporter?.close(),
  status: (api) => (api.problem ? { state: "degraded", detail: api.problem } : { state: "running" }),
});
