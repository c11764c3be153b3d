import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";
import { seedUsage } from "./_usage-seed.ts";

/*
 * The Usage page through the compiled daemon, fetched after the one-time login: ledger rows seeded into memory.db
 * through the ledger's write API before the daemon starts; the chart and the table come back under the page's CSP,
 * and the dashboard's spend line follows a budget raised in config.toml without a restart.
 */

const defer = cleanupAfterEach();

describe("Usage page in the daemon", () => {
  test("after the launch link: the SVG chart and the table; the dashboard's budget line follows config.toml live", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const [port, webhookPort] = [await freePort(), await freePort()];
    const config = (dailyUsd: number) =>
      [
        "[fermix_web]",
        `port = ${port}`,
        `webhook_port = ${webhookPort}`,
        "[fermix_core.personalization]",
        'timezone = "UTC"',
        "[fermix_core.budget]",
        `daily_usd = ${dailyUsd}`,
        "",
      ].join("\n");
    const file = h.writeConfig(config(1));
    const now = Date.now();
    seedUsage(join(h.home, "memory.db"), [
      {
        at: now - 1000,
        provider: "openai",
        model: "gpt-5.5",
        inputTokens: 1200,
        outputTokens: 300,
        costMicros: 250_000,
      },
      {
        ...{ at: now - 3 * 86_400_000, provider: "anthropic", model: "claude-unpriced" },
        ...{ inputTokens: 40, outputTokens: 2, costMicros: null },
      },
    ]);
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const origin = `http://127.0.0.1:${port}`;

    // Refused before the login; then the launch link once for the session cookie.
    expect((await fetch(`${origin}/usage`, { redirect: "manual" })).status).toBe(403);
    const minted = await runFermix(["setup", "--web", "--no-browser"], { env });
    expect(minted.code).toBe(0);
    const link = /http:\/\/127\.0\.0\.1:\d+\/setup\?t=\S+/.exec(minted.stdout)![0];
    const exchanged = await fetch(link, { redirect: "manual" });
    expect(exchanged.status).toBe(303);
    const cookie = exchanged.headers.get("set-cookie")!.split(";")[0]!;
    const get = async (path: string) => {
      const r = await fetch(`${origin}${path}`, { headers: { cookie }, redirect: "manual" });
      return { status: r.status, text: await r.text(), csp: r.headers.get("content-security-policy") };
    };

    const usage = await get("/usage");
    expect(usage.status).toBe(200);
    expect(usage.csp).toContain("default-src 'none'; style-src 'self'");
    expect(usage.csp).not.toContain("script-src");
    expect(usage.text).toContain("<h1>Usage</h1>");
    expect(usage.text).toMatch(/<svg [^>]*role="img" aria-label="Cost per day/);
    expect(usage.text).toMatch(
      /<rect [^>]*data-series="openai"><title>\d{4}-\d\d-\d\d · openai: \$0\.25, 1,500 tokens, 1 call<\/title>/,
    );
    expect(usage.text).not.toMatch(/\sstyle=/);
    expect(usage.text).toMatch(
      /<tr><td>\d{4}-\d\d-\d\d<\/td><td>openai<\/td><td>1<\/td><td>1,200<\/td>.*<td>\$0\.25<\/td><\/tr>/,
    );
    expect(usage.text).toMatch(/<td>anthropic<\/td><td>1<\/td>.*<td>unknown<\/td><\/tr>/);

    const home = await get("/");
    expect(home.text).toContain('<a href="/usage">Usage</a>');
    expect(home.text).toContain("Today: $0.25 of the $1.00 daily budget (25 %");
    // A raised (here: lowered) limit shows on the next load: config.toml is read as it is now.
    writeFileSync(file, config(0.5));
    expect(readFileSync(file, "utf8")).toContain("daily_usd = 0.5");
    expect((await get("/")).text).toContain("Today: $0.25 of the $0.50 daily budget (50 %");
  }, 60_000);
});
