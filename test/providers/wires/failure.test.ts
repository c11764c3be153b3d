import { describe, expect, test } from "bun:test";
import { classifyHttpError, retryAtFromHeaders } from "../../../src/providers/wires/_failure.ts";

const NOW = 1_760_000_000_000;
const none = new Headers();
const classify = (status: number, vendor: { message?: string; code?: string } = {}, headers = none) =>
  classifyHttpError("acme", status, vendor, headers, NOW);

describe("classifyHttpError", () => {
  test.each([401, 403])("%i is auth, naming the provider and keeping the vendor's words", (status) => {
    expect(classify(status, { message: "invalid x-api-key", code: "authentication_error" })).toEqual({
      class: "auth",
      provider: "acme",
      status,
      vendorCode: "authentication_error",
      message: `acme refused the credential (HTTP ${status}): invalid x-api-key`,
    });
  });

  test("429 is a rate limit carrying the reset time from the headers", () => {
    const failure = classify(429, { message: "slow down" }, new Headers({ "retry-after": "12" }));
    expect(failure).toMatchObject({ class: "rate_limit", status: 429, retryAt: NOW + 12_000 });
    expect(failure.message).toBe("acme rate limit or quota reached (HTTP 429): slow down");
  });

  test("an exhausted quota is a rate limit even off 429; no headers means no retryAt", () => {
    expect(classify(400, { code: "insufficient_quota" })).toMatchObject({ class: "rate_limit", retryAt: undefined });
  });

  test.each([
    [400, { code: "context_length_exceeded" }],
    [400, { message: "prompt is too long: 212345 tokens > 200000 maximum" }],
    [400, { message: "This model's maximum context length is 128000 tokens." }],
    [400, { message: "the input length exceeds the context length" }],
    [413, { message: "Too many tokens in the request" }],
    [400, { message: "Your input exceeds the context window of this model." }],
  ])("%i %j is context_length", (status, vendor) => {
    expect(classify(status, vendor).class).toBe("context_length");
  });

  test.each([
    [400, { message: "Invalid request." }],
    [404, { message: "The model `gpt-9` does not exist", code: "model_not_found" }],
    [422, { message: "Assistant message must have either content or tool_calls, but not both." }],
    // A context hint only counts on the statuses that reject a prompt for its size.
    [404, { message: "maximum context length unknown for this model" }],
  ])("%i %j is invalid_request", (status, vendor) => {
    expect(classify(status, vendor)).toMatchObject({ class: "invalid_request", status });
  });

  test.each([408, 409, 500, 502, 503, 529])("%i is transient", (status) => {
    expect(classify(status)).toMatchObject({
      class: "transient",
      status,
      message: `acme is unavailable (HTTP ${status})`,
    });
  });
});

describe("retryAtFromHeaders", () => {
  const at = (headers: Record<string, string>) => retryAtFromHeaders(new Headers(headers), NOW);

  test("no reset header means no reset time", () => {
    expect(at({})).toBeUndefined();
    expect(at({ "retry-after": "soon", "x-ratelimit-reset-requests": "later" })).toBeUndefined();
  });

  test("retry-after is seconds or an HTTP date", () => {
    expect(at({ "retry-after": "20" })).toBe(NOW + 20_000);
    expect(at({ "retry-after": "1.5" })).toBe(NOW + 1_500);
    expect(at({ "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" })).toBe(Date.UTC(2026, 9, 21, 7, 28));
  });

  test.each([
    ["6m0s", 360_000],
    ["1.5s", 1_500],
    ["20ms", 20],
    ["1h2m3s", 3_723_000],
  ])("OpenAI's x-ratelimit-reset-* duration %s", (value, ms) => {
    expect(at({ "x-ratelimit-reset-requests": value })).toBe(NOW + ms);
    expect(at({ "x-ratelimit-reset-tokens": value })).toBe(NOW + ms);
  });

  test("Anthropic's anthropic-ratelimit-*-reset is an RFC 3339 instant", () => {
    expect(at({ "anthropic-ratelimit-requests-reset": "2026-01-02T03:04:05Z" })).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(at({ "anthropic-ratelimit-tokens-reset": "2026-01-02T03:04:05Z" })).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
  });

  test("OpenRouter's x-ratelimit-reset is an epoch in milliseconds; a small number is not read as one", () => {
    expect(at({ "x-ratelimit-reset": String(NOW + 42_000) })).toBe(NOW + 42_000);
    expect(at({ "x-ratelimit-reset": "30" })).toBeUndefined();
  });

  test("when several dialects answer, the latest reset wins", () => {
    const headers = {
      "retry-after": "5",
      "x-ratelimit-reset-requests": "20s",
      "x-ratelimit-reset-tokens": "1m0s",
      "x-ratelimit-reset": String(NOW + 30_000),
    };
    expect(at(headers)).toBe(NOW + 60_000);
  });
});
