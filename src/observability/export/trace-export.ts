import type { Env } from "../../config/env.ts";
import type { Config } from "../../config/schema.ts";
import { registerSecret } from "../../config/secret-registry.ts";
import { envSecret, resolveSecret, type SecretDeps } from "../../config/secrets.ts";
import { EXPORT_DEFAULTS } from "../../config/sections/observability.ts";
import { defineError } from "../../error.ts";
import type { Log } from "../log.ts";
import { createExportQueue, type ExportQueueStats } from "./export-queue.ts";
import { createOpikSender, OPIK_DEFAULT_PROJECT, OPIK_DEFAULT_URL, type OpikTarget } from "./opik.ts";
import { createOtlpSender, OTLP_DEFAULT_ENDPOINT, type OtlpTarget, parseOtlpHeaders } from "./otlp.ts";
import { createSpanAssembler, type ExportSpan } from "./span-assembler.ts";

export const TraceExportInvalid = defineError<{ setting: string }>("trace_export_invalid");

export type ExportBatching = { batchSize: number; flushIntervalMs: number; queueLimit: number; timeoutMs: number };

/** Where traces go, decided from the environment (Opik, as the spec names it) and config.toml (OTLP). */
export type ExportPlan = {
  opik?: OpikTarget;
  otlp?: OtlpTarget;
  batching: ExportBatching;
};

export function opikEnabled(env: Env): boolean {
  return env.FERMIX_OPIK_ENABLED === "1";
}

/**
 * Both exporters are off unless asked for: Opik by FERMIX_OPIK_ENABLED=1 (FERMIX_OPIK_BASE_URL,
 * FERMIX_OPIK_PROJECT, OPIK_API_KEY, OPIK_WORKSPACE), OTLP by [fermix_core.observability] otlp_enabled = true
 * (endpoint from otlp_endpoint, else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT; headers
 * from OTEL_EXPORTER_OTLP_HEADERS and otlp_headers). A bad setting throws naming it.
 */
export function planTraceExport(env: Env, config: Config, secrets: SecretDeps): ExportPlan {
  const o = config.fermix_core?.observability;
  const plan: ExportPlan = {
    batching: {
      batchSize: o?.batch_size ?? EXPORT_DEFAULTS.batchSize,
      flushIntervalMs:
        o?.flush_interval_seconds !== undefined ? o.flush_interval_seconds * 1000 : EXPORT_DEFAULTS.flushIntervalMs,
      queueLimit: o?.queue_limit ?? EXPORT_DEFAULTS.queueLimit,
      timeoutMs: o?.timeout_seconds !== undefined ? o.timeout_seconds * 1000 : EXPORT_DEFAULTS.timeoutMs,
    },
  };
  if (opikEnabled(env)) {
    const baseUrl = env.FERMIX_OPIK_BASE_URL?.trim() || OPIK_DEFAULT_URL;
    httpUrl(baseUrl, "FERMIX_OPIK_BASE_URL", "e.g. http://localhost:5173/api or https://www.comet.com/opik/api");
    const apiKey = envSecret(env, "OPIK_API_KEY")?.trim();
    plan.opik = {
      baseUrl,
      project: env.FERMIX_OPIK_PROJECT?.trim() || OPIK_DEFAULT_PROJECT,
      ...(apiKey ? { apiKey } : {}),
      ...(env.OPIK_WORKSPACE?.trim() ? { workspace: env.OPIK_WORKSPACE.trim() } : {}),
    };
  }
  if (o?.otlp_enabled === true) {
    let url: string;
    if (o.otlp_endpoint) url = tracesUrl(o.otlp_endpoint);
    else if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.trim();
    else url = tracesUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || OTLP_DEFAULT_ENDPOINT);
    httpUrl(
      url,
      o.otlp_endpoint ? "[fermix_core.observability] otlp_endpoint" : "OTEL_EXPORTER_OTLP_ENDPOINT",
      "e.g. http://127.0.0.1:4318",
    );
    const headers: Record<string, string> = {};
    for (const variable of ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"]) {
      const text = env[variable];
      if (!text) continue;
      try {
        Object.assign(headers, parseOtlpHeaders(text, variable));
      } catch (err) {
        throw TraceExportInvalid((err as Error).message, { setting: variable });
      }
    }
    for (const [name, ref] of Object.entries(o.otlp_headers ?? {})) {
      headers[name.toLowerCase()] = resolveSecret(
        ref,
        `OTLP_HEADER_${name.toUpperCase().replaceAll("-", "_")}`,
        secrets,
      );
    }
    // The ones from config.toml were registered as they were resolved; the OTEL_* ones are read here.
    for (const value of Object.values(headers)) registerSecret(value);
    plan.otlp = { url, headers };
  }
  return plan;
}

/** A root gets /v1/traces; a URL already ending in it is taken whole. */
function tracesUrl(endpoint: string): string {
  const trimmed = endpoint.replace(/\/+$/, "");
  return trimmed.endsWith("/v1/traces") ? trimmed : `${trimmed}/v1/traces`;
}

function httpUrl(value: string, setting: string, example: string): void {
  let ok = false;
  try {
    ok = /^https?:$/.test(new URL(value).protocol);
  } catch {}
  if (!ok) throw TraceExportInvalid(`${setting} is not an http(s) URL (${example})`, { setting });
}

/** At exit (an ask, a daemon stopping), what is left gets at most this long, however long a request may take. */
const MAX_DRAIN_MS = 5_000;

export type ExporterStatus = { name: "opik" | "otlp"; target: string } & ExportQueueStats;

export type TraceExport = {
  /** One trace line, already redacted; never blocks, never throws. */
  record(rec: Record<string, unknown>): void;
  status(): ExporterStatus[];
  /** Closes open sessions and sends what is queued, for at most the export timeout (and at most 5 s). */
  close(): Promise<void>;
};

/** The exporters a plan asks for, fed by one assembler; undefined when both are off. */
export function createTraceExport(plan: ExportPlan, deps: { fetch: typeof fetch; log?: Log }): TraceExport | undefined {
  const { batching } = plan;
  const sinks: { name: "opik" | "otlp"; target: string; queue: ReturnType<typeof createExportQueue<ExportSpan>> }[] =
    [];
  const add = (name: "opik" | "otlp", target: string, send: (b: ExportSpan[], s: AbortSignal) => Promise<void>) => {
    const label = name === "opik" ? "Opik" : "OTLP";
    sinks.push({
      name,
      target,
      queue: createExportQueue<ExportSpan>({
        batchSize: batching.batchSize,
        intervalMs: batching.flushIntervalMs,
        limit: batching.queueLimit,
        timeoutMs: batching.timeoutMs,
        send,
        onError: (err) => deps.log?.warn(`${label} trace export to ${target} failed: ${err.message}`),
        onRecovered: () => deps.log?.info(`${label} trace export to ${target} works again`),
      }),
    });
  };
  if (plan.opik)
    add("opik", `${plan.opik.baseUrl} (project ${plan.opik.project})`, createOpikSender(plan.opik, deps.fetch).send);
  if (plan.otlp) add("otlp", plan.otlp.url, createOtlpSender(plan.otlp, deps.fetch).send);
  if (!sinks.length) return undefined;
  const assembler = createSpanAssembler((span) => {
    for (const s of sinks) s.queue.push(span);
  });
  return {
    record(rec) {
      try {
        assembler.record(rec);
      } catch {}
    },
    status: () => sinks.map((s) => ({ name: s.name, target: s.target, ...s.queue.stats() })),
    async close() {
      assembler.closeAll();
      await Promise.all(sinks.map((s) => s.queue.drain(Math.min(batching.timeoutMs, MAX_DRAIN_MS))));
      for (const s of sinks) {
        const { dropped } = s.queue.stats();
        if (dropped) deps.log?.warn(`${s.name} trace export dropped ${dropped} spans (queue full)`);
      }
    },
  };
}
