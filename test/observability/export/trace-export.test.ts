import { describe, expect, test } from "bun:test";
import { registeredSecrets } from "../../../src/config/secret-registry.ts";
import { parseOtlpHeaders } from "../../../src/observability/export/otlp.ts";
import { planTraceExport } from "../../../src/observability/export/trace-export.ts";

const secrets = { env: {}, secretsDir: "/nonexistent" };
const otlpOn = (extra = {}) => ({ fermix_core: { observability: { otlp_enabled: true, ...extra } } });

describe("planTraceExport", () => {
  test("both off by default, whatever OTEL_* says", () => {
    const plan = planTraceExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, {}, secrets);
    expect(plan.opik).toBeUndefined();
    expect(plan.otlp).toBeUndefined();
    expect(plan.batching).toEqual({ batchSize: 100, flushIntervalMs: 5000, queueLimit: 2048, timeoutMs: 10000 });
  });

  test("Opik from the environment, with its defaults", () => {
    expect(planTraceExport({ FERMIX_OPIK_ENABLED: "1" }, {}, secrets).opik).toEqual({
      baseUrl: "http://localhost:5173/api",
      project: "fermix",
    });
    const plan = planTraceExport(
      { FERMIX_OPIK_ENABLED: "1", FERMIX_OPIK_PROJECT: "p", OPIK_API_KEY: "k-0123456789", OPIK_WORKSPACE: "w" },
      {},
      secrets,
    );
    expect(plan.opik).toMatchObject({ project: "p", apiKey: "k-0123456789", workspace: "w" });
    expect(registeredSecrets()).toContain("k-0123456789");
  });

  test("OTLP: config endpoint, then the OTEL variables; headers from both; batching from config", () => {
    expect(planTraceExport({}, otlpOn(), secrets).otlp?.url).toBe("http://localhost:4318/v1/traces");
    expect(planTraceExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }, otlpOn(), secrets).otlp?.url).toBe(
      "http://c:4318/v1/traces",
    );
    expect(
      planTraceExport({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:9/custom" }, otlpOn(), secrets).otlp?.url,
    ).toBe("http://c:9/custom");
    const plan = planTraceExport(
      { OTEL_EXPORTER_OTLP_HEADERS: "x-a=1", TOKEN: "tok-0123456789" },
      otlpOn({
        otlp_endpoint: "http://o:1",
        otlp_headers: { Authorization: "$TOKEN" },
        batch_size: 7,
        timeout_seconds: 2,
      }),
      { ...secrets, env: { TOKEN: "tok-0123456789" } },
    );
    expect(plan.otlp).toEqual({
      url: "http://o:1/v1/traces",
      headers: { "x-a": "1", authorization: "tok-0123456789" },
    });
    expect(plan.batching).toMatchObject({ batchSize: 7, timeoutMs: 2000 });
    expect(registeredSecrets()).toContain("tok-0123456789");
  });

  test("a bad setting names itself", () => {
    expect(() => planTraceExport({ FERMIX_OPIK_ENABLED: "1", FERMIX_OPIK_BASE_URL: "localhost" }, {}, secrets)).toThrow(
      "FERMIX_OPIK_BASE_URL is not an http(s) URL",
    );
    expect(() => planTraceExport({ OTEL_EXPORTER_OTLP_HEADERS: "=x" }, otlpOn(), secrets)).toThrow(
      "OTEL_EXPORTER_OTLP_HEADERS holds a pair without a valid header name",
    );
  });

  test("OTEL_EXPORTER_OTLP_HEADERS: percent-decoded values, names lower-cased", () => {
    expect(parseOtlpHeaders("Authorization=Basic%20abc, x-b = 2 ,", "V")).toEqual({
      authorization: "Basic abc",
      "x-b": "2",
    });
  });
});
