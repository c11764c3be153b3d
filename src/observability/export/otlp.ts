import { readCappedText } from "../../net/read-capped.ts";
import { VERSION } from "../../version.ts";
import { spanHex, traceHex } from "./ids.ts";
import type { ExportSpan } from "./span-assembler.ts";

/**
 * OTLP/HTTP with the JSON encoding (ExportTraceServiceRequest as the OpenTelemetry proto JSON mapping has it:
 * lowerCamelCase fields, hex trace and span ids, nanosecond times as decimal strings, enums as numbers) to any
 * OpenTelemetry collector's /v1/traces.
 */
export type OtlpTarget = { url: string; headers: Record<string, string> };

export const OTLP_DEFAULT_ENDPOINT = "http://localhost:4318";

const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

export function createOtlpSender(target: OtlpTarget, fetchFn: typeof fetch) {
  const post = async (body: unknown, signal: AbortSignal) => {
    const res = await fetchFn(target.url, {
      method: "POST",
      headers: { ...target.headers, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    if (!res.ok) {
      // An error body is only a detail: read up to 64 KiB (readCappedText's cap), 300 characters shown.
      const text = (await readCappedText(res)).trim().slice(0, 300);
      throw new Error(`the OTLP collector answered ${res.status}: ${text || res.statusText || "no body"}`);
    }
    await res.body?.cancel();
  };
  return {
    send: (batch: ExportSpan[], signal: AbortSignal) => post(otlpRequest(batch), signal),
    /** `doctor --full`: an empty export, which a collector accepts with 200. */
    probe: (signal: AbortSignal) => post({ resourceSpans: [] }, signal),
  };
}

export function otlpRequest(batch: ExportSpan[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [attr("service.name", "fermix"), attr("service.version", VERSION)] },
        scopeSpans: [{ scope: { name: "fermix", version: VERSION }, spans: batch.map(otlpSpan) }],
      },
    ],
  };
}

function otlpSpan(s: ExportSpan) {
  const attributes = [
    attr("fermix.session_id", s.sessionId),
    ...Object.entries(s.attributes).map(([k, v]) => attr(`fermix.${k}`, v)),
  ];
  if (s.type === "llm") {
    if (s.provider) attributes.push(attr("gen_ai.system", s.provider));
    if (s.model) attributes.push(attr("gen_ai.request.model", s.model));
    if (s.usage?.input !== undefined) attributes.push(attr("gen_ai.usage.input_tokens", s.usage.input));
    if (s.usage?.output !== undefined) attributes.push(attr("gen_ai.usage.output_tokens", s.usage.output));
  }
  if (s.type === "tool") attributes.push(attr("gen_ai.tool.name", s.name));
  // Content rides only when the traces captured it; as JSON text, since attribute values are flat.
  if (s.input !== undefined) attributes.push(attr("fermix.input", JSON.stringify(s.input)));
  if (s.output !== undefined) attributes.push(attr("fermix.output", JSON.stringify(s.output)));
  return {
    traceId: traceHex(s.traceId),
    spanId: spanHex(s.id),
    ...(s.parentId ? { parentSpanId: spanHex(s.parentId) } : {}),
    name: s.name,
    kind: s.type === "llm" ? SPAN_KIND_CLIENT : SPAN_KIND_INTERNAL,
    startTimeUnixNano: nanos(s.startMs),
    endTimeUnixNano: nanos(s.endMs),
    attributes,
    status: s.error ? { code: STATUS_ERROR, message: `${s.error.type}: ${s.error.message}` } : { code: STATUS_OK },
  };
}

function attr(key: string, value: string | number | boolean) {
  if (typeof value === "boolean") return { key, value: { boolValue: value } };
  if (typeof value === "number") {
    return Number.isInteger(value)
      ? { key, value: { intValue: String(value) } }
      : { key, value: { doubleValue: value } };
  }
  return { key, value: { stringValue: value } };
}

function nanos(ms: number): string {
  return (BigInt(Math.round(ms)) * 1_000_000n).toString();
}

/**
 * OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs joined by commas, values percent-encoded (the OpenTelemetry
 * SDK environment spec). A malformed pair is an error naming the variable, never silently dropped.
 */
export function parseOtlpHeaders(text: string, variable: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(",")) {
    const pair = raw.trim();
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const key = eq > 0 ? pair.slice(0, eq).trim() : "";
    if (!/^[A-Za-z0-9-]+$/.test(key)) {
      throw new Error(`${variable} holds a pair without a valid header name; write key=value pairs joined by commas`);
    }
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      throw new Error(`${variable}: the value of ${key} is not valid percent-encoding`);
    }
    out[key.toLowerCase()] = value;
  }
  return out;
}
