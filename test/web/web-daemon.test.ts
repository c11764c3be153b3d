import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createWebhookListener } from "../../src/gateway/webhooks/webhook-listener.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";

/*
 * The setup page through the compiled daemon: `fermix setup --web --no-browser` mints the launch link, the browser's
 * requests are plain fetches (redirects not followed, cookies carried by hand), and each attack is refused with
 * nothing written. Every response body and header is scanned for the configured secrets.
 */

const OPENAI_KEY = "sk-proj-webtest0123456789abcdefghijklmnopqrstuv";
const BOT_TOKEN = "123456789:AAwebtestTOKENabcdefghijklmnopqrstuvw";
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  defer(() => llm.close());
  const port = await freePort();
  const webhookPort = await freePort();
  h.writeConfig(
    [
      "[fermix_web]",
      `port = ${port}`,
      `webhook_port = ${webhookPort}`,
      "[fermix_core.providers.openai]",
      "primary = true",
      `api_key = "${OPENAI_KEY}"`,
      `base_url = "${llm.baseUrl}"`,
      "[fermix_channels.telegram]",
      "enabled = false",
      'owner_user_id = "1"',
      `bot_token = "${BOT_TOKEN}"`,
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome };
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  const origin = `http://127.0.0.1:${port}`;
  const seen: string[] = [];
  /** A browser request: no redirect following; every answer kept for the secret scan. */
  const ask = async (path: string, init: RequestInit = {}) => {
    const r = await fetch(`${origin}${path}`, { redirect: "manual", ...init });
    const text = await r.text();
    seen.push(text, JSON.stringify([...r.headers]));
    return { status: r.status, text, headers: r.headers };
  };
  const mint = async () => {
    const out = await runFermix(["setup", "--web", "--no-browser"], { env });
    expect(out.code).toBe(0);
    const url = /http:\/\/127\.0\.0\.1:\d+\/setup\?t=\S+/.exec(out.stdout)?.[0];
    expect(url).toBeDefined();
    seen.push(out.stdout, out.stderr);
    return new URL(url!);
  };
  const login = async () => {
    const url = await mint();
    const r = await ask(`${url.pathname}${url.search}`);
    expect(r.status).toBe(303);
    const cookie = r.headers.get("set-cookie")!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    return { url, cookie: cookie.split(";")[0]! };
  };
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  const scan = () => {
    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    for (const secret of [OPENAI_KEY, BOT_TOKEN, readFileSync(join(h.home, "setup-token"), "utf8").trim()]) {
      for (const text of [...seen, log, daemon.stderr()]) expect(text).not.toContain(secret);
    }
  };
  return { h, env, port, origin, ask, mint, login, csrfOf, scan, daemon };
}

describe("web setup page in the daemon", () => {
  test("launch link → cookie → dashboard and doctor; the link dies after use; rotate logs out", async () => {
    const s = await setup();
    const { url, cookie } = await s.login();
    const home = await s.ask("/", { headers: { cookie } });
    expect(home.status).toBe(200);
    expect(home.text).toContain("Primary: <strong>openai</strong>");
    expect(home.text).toContain("Recent job runs");
    expect(home.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(home.headers.get("x-frame-options")).toBe("DENY");
    expect(home.headers.get("access-control-allow-origin")).toBeNull();
    expect(home.text).not.toContain("<script");
    const doctor = await s.ask("/doctor", { headers: { cookie } });
    expect(doctor.status).toBe(200);
    expect(doctor.text).toContain(`listening on http://127.0.0.1:${s.port} (bound to loopback only)`);
    // Used once: the same link again is refused and makes no session.
    const again = await s.ask(`${url.pathname}${url.search}`);
    expect(again.status).toBe(403);
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(existsSync(join(s.h.home, "setup-launch-token.json"))).toBe(false);
    // Rotating the setup token logs the browser out.
    const rotated = await runFermix(["setup", "--rotate-token"], { env: s.env });
    expect(rotated.code).toBe(0);
    const after = await s.ask("/", { headers: { cookie } });
    expect(after.status).toBe(403);
    expect(after.text).toContain("fermix setup --web");
    s.scan();
  }, 60_000);

  test("attacks are refused with nothing written and no launch token used", async () => {
    const s = await setup();
    const url = await s.mint();
    const launchFile = join(s.h.home, "setup-launch-token.json");
    const before = readFileSync(launchFile, "utf8");
    const t = `${url.pathname}${url.search}`;
    // DNS rebinding: right address, foreign Host — even with the real launch token.
    const rebound = await s.ask(t, { headers: { host: "evil.example" } });
    expect(rebound.status).toBe(403);
    expect(rebound.headers.get("set-cookie")).toBeNull();
    // A cross-origin POST to any path, the launch path included.
    for (const path of [t, "/logout", "/nowhere"]) {
      const r = await s.ask(path, {
        method: "POST",
        headers: { origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
        body: "csrf=x",
      });
      expect(r.status).toBe(403);
      expect(r.text).toContain("cross-origin");
    }
    // No cookie, or a made-up one.
    for (const headers of [{}, { cookie: "fermix_setup_session=forged" }] as Record<string, string>[]) {
      const r = await s.ask("/", { headers });
      expect(r.status).toBe(403);
      expect(r.text).toContain("Run `fermix setup --web`");
    }
    // A wrong launch token does not burn the real one.
    expect((await s.ask("/setup?t=wrong")).status).toBe(403);
    expect(readFileSync(launchFile, "utf8")).toBe(before);
    // The real link still works after all of that; then a wrong CSRF token changes nothing.
    const ok = await s.ask(t);
    expect(ok.status).toBe(303);
    const cookie = ok.headers.get("set-cookie")!.split(";")[0]!;
    const page = await s.ask("/", { headers: { cookie } });
    const csrf = s.csrfOf(page.text);
    expect(csrf).toBeDefined();
    const form = { origin: s.origin, cookie, "content-type": "application/x-www-form-urlencoded" };
    const forged = await s.ask("/logout", { method: "POST", headers: form, body: "csrf=wrong" });
    expect(forged.status).toBe(403);
    expect((await s.ask("/", { headers: { cookie } })).status).toBe(200);
    // The right one logs out.
    const out = await s.ask("/logout", { method: "POST", headers: form, body: `csrf=${encodeURIComponent(csrf!)}` });
    expect(out.status).toBe(200);
    expect((await s.ask("/", { headers: { cookie } })).status).toBe(403);
    s.scan();
  }, 60_000);

  test("doctor has a row for the page: listening, loopback only", async () => {
    const s = await setup();
    const out = await runFermix(["doctor", "--json"], { env: s.env });
    const rows = JSON.parse(out.stdout).result.rows as Array<{ id: string; status: string; detail: string }>;
    const web = rows.find((r) => r.id === "web");
    expect(web).toMatchObject({ status: "ok" });
    expect(web!.detail).toContain(`127.0.0.1:${s.port} (bound to loopback only)`);
    expect(out.stdout).not.toContain(OPENAI_KEY);
  }, 60_000);
});

test("the webhook port never serves the setup page", async () => {
  const listener = createWebhookListener({ port: await freePort(), log: { info() {}, error() {} } });
  listener.register({ method: "POST", path: "/webhook/x", handle: async () => new Response("ok") });
  const state = listener.start();
  defer(() => listener.stop());
  if (state.state !== "listening") throw new Error("the webhook listener did not start");
  for (const path of ["/setup", "/setup?t=x", "/", "/doctor"]) {
    const r = await fetch(`http://127.0.0.1:${state.port}${path}`);
    expect(r.status).toBe(404);
    expect(r.headers.get("set-cookie")).toBeNull();
  }
});
