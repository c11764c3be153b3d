import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeTelegram } from "../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { openWebSession } from "../fixture/web-session.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";

/*
 * The Plugins and Channels pages through the compiled daemon: install a catalog plugin (offline, from the embedded
 * signed catalog), enable it, store its key, and set Telegram's token against the fake Bot API, then Test. Every
 * response is scanned for the secrets.
 */

const OPENAI_KEY = "sk-proj-webplugins0123456789abcdefghijklmnopq";
const SLACK_KEY = "xoxb-20261129-webpage-plugin-key-do-not-leak";
const defer = cleanupAfterEach();

describe("web setup: Plugins and Channels pages in the daemon", () => {
  test("install + enable + key for slack; Telegram token saved and tested; no secret in any response", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const llm = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
    defer(() => llm.close());
    const telegram = await startFakeTelegram();
    defer(() => telegram.close());
    const port = await freePort();
    h.writeConfig(
      [
        "[fermix_web]",
        `port = ${port}`,
        `webhook_port = ${await freePort()}`,
        "[fermix_core.providers.openai]",
        "primary = true",
        `api_key = "${OPENAI_KEY}"`,
        `base_url = "${llm.baseUrl}"`,
        "[fermix_channels.telegram]",
        "enabled = false",
        `api_base_url = "${telegram.baseUrl}"`,
        "",
      ].join("\n"),
    );
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const web = await openWebSession(env, port);
    const { get, seen } = web;
    const post = async (path: string, fields: Record<string, string>) => web.follow(await web.post(path, fields));

    const plugins = await get("/setup/plugins");
    expect(plugins.status).toBe(200);
    expect(plugins.text).toContain("<h2>slack");
    expect(plugins.text).toContain("fermix plugins auth login gmail");

    const installed = await post("/setup/plugins", { name: "slack", action: "install" });
    expect(installed.next.searchParams.get("notice")).toMatch(/^installed slack 1\.0\.0/);
    const enabled = await post("/setup/plugins", { name: "slack", action: "enable" });
    expect(enabled.next.searchParams.get("notice")).toStartWith("slack enabled");
    const keyed = await post("/setup/plugins", { name: "slack", action: "set_key", secret: SLACK_KEY });
    expect(keyed.next.searchParams.get("notice")).toStartWith("slack: key saved");
    expect(keyed.page.text).toContain("API key (set)");
    const config = readFileSync(join(h.home, "config.toml"), "utf8");
    expect(config).toMatch(/enabled = \[[^\]]*"slack"/);
    expect(config).not.toContain(SLACK_KEY);
    const list = await runFermix(["plugins", "list"], { env });
    expect(list.stdout).toMatch(/^slack\t1\.0\.0\tinstalled\tenabled\t/m);

    const channels = await get("/setup/channels");
    expect(channels.text).toContain("fermix restart");
    expect(channels.text).toContain("Bot token (from @BotFather) (not set)");
    const saved = await post("/setup/channels", {
      name: "telegram",
      action: "save",
      owner_user_id: "4242",
      bot_token: telegram.token,
    });
    expect(saved.next.searchParams.get("notice")).toContain("telegram saved and tested");
    expect(saved.page.text).toContain("Bot token (from @BotFather) (set)");
    expect(saved.page.text).toContain('value="4242"');
    const after = readFileSync(join(h.home, "config.toml"), "utf8");
    expect(after).toContain('bot_token = "@keyring"');
    expect(after).not.toContain(telegram.token);
    const tested = await post("/setup/channels", { name: "telegram", action: "test" });
    expect(tested.next.searchParams.get("notice")).toStartWith("telegram: ok:");
    const wrong = await post("/setup/channels", {
      name: "telegram",
      action: "save",
      bot_token: "111:AAwrongTokenForTheFakeBotApi_xyz",
    });
    expect(wrong.next.searchParams.get("error")).toContain("Telegram refused the bot token");
    seen.push(wrong.next.search);

    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    for (const secret of [OPENAI_KEY, SLACK_KEY, telegram.token, "AAwrongTokenForTheFakeBotApi_xyz"]) {
      for (const text of [...seen, log, daemon.stderr()]) expect(text).not.toContain(secret);
    }
  }, 90_000);
});
