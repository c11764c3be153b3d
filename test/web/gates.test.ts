import { describe, expect, test } from "bun:test";
import {
  AUTH_REQUIRED,
  createSessionStore,
  csrfValid,
  hostAllowed,
  isStateChanging,
  originAllowed,
  readCookie,
  SECURITY_HEADERS,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  sessionCookie,
  withSecurityHeaders,
} from "../../src/web/gates.ts";

describe("host gate", () => {
  test("loopback by name or number with our port only", () => {
    expect(hostAllowed("127.0.0.1:4030", 4030)).toBe(true);
    expect(hostAllowed("localhost:4030", 4030)).toBe(true);
    for (const host of ["evil.example", "evil.example:4030", "127.0.0.1:4031", "127.0.0.1", "0.0.0.0:4030", null]) {
      expect(hostAllowed(host, 4030)).toBe(false);
    }
  });
});

describe("origin gate", () => {
  const h = (init: Record<string, string>) => new Headers(init);
  test("only our own origin may change state; a missing Origin is refused", () => {
    expect(originAllowed(h({ origin: "http://127.0.0.1:4030" }), 4030)).toBe(true);
    expect(originAllowed(h({ origin: "http://localhost:4030", "sec-fetch-site": "same-origin" }), 4030)).toBe(true);
    expect(originAllowed(h({ origin: "http://evil.example" }), 4030)).toBe(false);
    expect(originAllowed(h({ origin: "null" }), 4030)).toBe(false);
    expect(originAllowed(h({}), 4030)).toBe(false);
    expect(originAllowed(h({ origin: "http://127.0.0.1:4030", "sec-fetch-site": "cross-site" }), 4030)).toBe(false);
  });
  test("GET and HEAD are the only safe methods", () => {
    expect(isStateChanging("GET")).toBe(false);
    expect(isStateChanging("head")).toBe(false);
    for (const m of ["POST", "PUT", "DELETE", "PATCH"]) expect(isStateChanging(m)).toBe(true);
  });
});

describe("session gate", () => {
  test("a session is found by its cookie while unexpired and bound to the current fingerprint", () => {
    let now = 1_000;
    const store = createSessionStore({ now: () => now });
    const s = store.create("fp1");
    const cookie = `other=1; ${SESSION_COOKIE}=${s.id}`;
    expect(readCookie(cookie, SESSION_COOKIE)).toBe(s.id);
    expect(store.find(cookie, "fp1")?.id).toBe(s.id);
    expect(store.find(null, "fp1")).toBeUndefined();
    expect(store.find(`${SESSION_COOKIE}=made-up`, "fp1")).toBeUndefined();
    // A rotated setup token ends it for good.
    expect(store.find(cookie, "fp2")).toBeUndefined();
    expect(store.find(cookie, "fp1")).toBeUndefined();
    const t = store.create("fp1");
    now += SESSION_TTL_MS;
    expect(store.find(`${SESSION_COOKIE}=${t.id}`, "fp1")).toBeUndefined();
    expect(store.size()).toBe(0);
  });
  test("the cookie is HttpOnly and SameSite=Strict", () => {
    const cookie = sessionCookie("abc");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
  });
  test("the refusal names the one way in", () => {
    expect(AUTH_REQUIRED).toContain("fermix setup --web");
  });
});

describe("csrf gate", () => {
  test("the form token must equal the session's", () => {
    const s = createSessionStore({ now: () => 0 }).create("fp");
    expect(csrfValid(s, s.csrf)).toBe(true);
    expect(csrfValid(s, `${s.csrf}x`)).toBe(false);
    expect(csrfValid(s, "")).toBe(false);
    expect(csrfValid(s, null)).toBe(false);
  });
});

describe("security headers", () => {
  test("strict CSP without inline script, no framing, no CORS", () => {
    const r = withSecurityHeaders(new Response("x", { headers: { "access-control-allow-origin": "*" } }));
    expect(r.headers.get("content-security-policy")).toBe(SECURITY_HEADERS["content-security-policy"]!);
    expect(r.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(r.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
