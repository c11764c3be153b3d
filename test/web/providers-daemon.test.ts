import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeModelApi } from "../fake/model-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { openWebSession } from "../fixture/web-session.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";

/*
 * The Providers page through the compiled daemon: saving a form probes the key once against a fake provider and
 * writes through setup's own code (key to the secret store, config.toml edited in place); Set primary flips the flag.
 * Every response is scanned for the keys.
 */

const OPENAI_KEY = "sk-proj-webprov0123456789abcdefghijklmnopqrstu";
const ANTHROPIC_KEY = "sk-ant-webprov0123456789abcdefghijklmnopqrstu";
const WRONG_KEY = "sk-proj-wrong0123456789abcdefghijklmnopqrstuvw";
const defer = cleanupAfterEach();

describe("web Providers page in the daemon", () => {
  test("save OpenAI (probed, keyring), add Anthropic, Set primary flips back; a wrong key writes nothing", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const openai = await startFakeModelApi({ flavor: "openai", apiKey: OPENAI_KEY, models: ["gpt-5.5"] });
    defer(() => openai.close());
    const anthropic = await startFakeModelApi({
      flavor: "anthropic",
      apiKey: ANTHROPIC_KEY,
      models: ["claude-sonnet-4-6"],
    });
    defer(() => anthropic.close());
    const port = await freePort();
    h.writeConfig(
      ["# the owner's comment, kept", "[fermix_web]", `port = ${port}`, `webhook_port = ${await freePort()}`, ""].join(
        "\n",
      ),
    );
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const web = await openWebSession(env, port);
    const { get, seen } = web;
    /** A form post, then the GET it redirects to. */
    const post = async (fields: Record<string, string>) =>
      (await web.follow(await web.post("/setup/providers", fields))).page;
    const configText = () => readFileSync(join(h.home, "config.toml"), "utf8");
    const status = (text: string, id: string) => new RegExp(`data-status="${id}">([^<]+)<`).exec(text)?.[1];

    const first = await get("/setup/providers");
    expect(status(first.text, "openai")).toBe("Not configured");
    const form = await get("/setup/providers?provider=openai");
    expect(form.text).toContain("Configuring OpenAI");

    // A wrong key: the probe's error on the page, nothing written.
    const before = configText();
    const refused = await post({ provider: "openai", model: "gpt-5.5", base_url: openai.baseUrl, api_key: WRONG_KEY });
    expect(refused.text).toContain('class="fail"');
    expect(refused.text).toContain("OpenAI failed the test");
    expect(configText()).toBe(before);
    expect(existsSync(join(h.home, "secrets", "OPENAI_API_KEY"))).toBe(false);

    const saved = await post({
      provider: "openai",
      model: "gpt-5.5",
      base_url: openai.baseUrl,
      api_key: OPENAI_KEY,
      effort: "high",
    });
    expect(saved.text).toContain("fermix restart");
    expect(status(saved.text, "openai")).toBe("Primary");
    let text = configText();
    expect(text).toContain("# the owner's comment, kept");
    expect(text).toContain('api_key = "@keyring"');
    expect(text).toContain('reasoning_effort = "high"');
    expect(text).not.toContain(OPENAI_KEY);
    expect(readFileSync(join(h.home, "secrets", "OPENAI_API_KEY"), "utf8")).toBe(OPENAI_KEY);
    expect(openai.requests.length).toBeGreaterThan(0);

    await post({
      provider: "anthropic",
      model: "claude-sonnet-4-6",
      base_url: anthropic.baseUrl,
      api_key: ANTHROPIC_KEY,
    });
    const page = await get("/setup/providers");
    expect(status(page.text, "anthropic")).toBe("Primary");
    expect(status(page.text, "openai")).toBe("Fallback");
    expect(page.text).toContain("Set primary");

    // Set primary: no key, no probe.
    const probes = openai.requests.length;
    const flipped = await post({ provider: "openai", action: "primary" });
    expect(status(flipped.text, "openai")).toBe("Primary");
    expect(status(flipped.text, "anthropic")).toBe("Fallback");
    expect(openai.requests.length).toBe(probes);
    text = configText();
    expect(text).toContain("# the owner's comment, kept");
    expect(text).not.toContain(ANTHROPIC_KEY);

    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    for (const secret of [OPENAI_KEY, ANTHROPIC_KEY, WRONG_KEY]) {
      for (const t of [...seen, log, daemon.stderr()]) expect(t).not.toContain(secret);
    }
  }, 60_000);
});
