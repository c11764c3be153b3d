import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { fermixPaths } from "../../src/config/paths.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { pluginsNeedingReconnect } from "../../src/doctor/plugin-reconnect.ts";
import { pluginsCheck } from "../../src/doctor/plugins-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { loadCatalog } from "../../src/plugins/catalog/load-catalog.ts";
import { createPluginHost } from "../../src/plugins/plugin-host.ts";
import { createPluginStore } from "../../src/plugins/store/plugin-store.ts";
import { VERSION } from "../../src/version.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();
const NOW = Date.parse("2026-03-01T12:00:00Z");
const DAY = 24 * 60 * 60 * 1000;
const ACCESS = "gho_doctortest0123456789abcdefghij";
const DISCORD_TOKEN = "discord-bot-token-for-doctor-tests";

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

function writeAuth(h: TempHome, tokens: Record<string, Record<string, unknown>>) {
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  const plugins = Object.fromEntries(
    Object.entries(tokens).map(([name, t]) => [
      name,
      {
        provider: name,
        access_token: ACCESS,
        scopes: ["repo"],
        obtained_at: new Date(NOW - 90 * DAY).toISOString(),
        ...t,
      },
    ]),
  );
  writeFileSync(`${h.home}/auth.json`, JSON.stringify({ plugins }), { mode: 0o600 });
}

const stale = { expires_at: new Date(NOW - 30 * DAY).toISOString() };
const fresh = { expires_at: new Date(NOW + DAY).toISOString() };

describe("doctor: plugins (default: config.toml and auth.json only)", () => {
  test("none enabled", async () => {
    const { rows } = await runDoctor(doctorDeps(home()), [pluginsCheck]);
    expect(rows).toEqual([{ id: "plugins", title: "plugins", status: "ok", detail: "none enabled" }]);
  });

  test("a token well past expiry with nothing to refresh it: reconnect needed", async () => {
    const h = home();
    h.writeConfig('[fermix_core.plugins]\nenabled = ["github", "obsidian"]\n');
    writeAuth(h, { github: stale });
    const report = await runDoctor(doctorDeps(h, { now: () => NOW }), [pluginsCheck]);
    expect(report.rows).toEqual([
      {
        id: "plugins.github",
        title: "plugins",
        status: "warn",
        detail: "github: its sign-in was revoked or expired long ago; its tools fail until you reconnect",
        fix: "Reconnect needed: fermix plugins auth reauthorize github",
      },
    ]);
    expect(JSON.stringify(report)).not.toContain(ACCESS);
  });

  test("a refresh token the provider refused (invalidated) is the same", async () => {
    const h = home();
    h.writeConfig('[fermix_core.plugins]\nenabled = ["github"]\n');
    writeAuth(h, { github: { ...fresh, refresh_token: "ghr_x", invalidated: true } });
    const { rows } = await runDoctor(doctorDeps(h, { now: () => NOW }), [pluginsCheck]);
    expect(rows[0]).toMatchObject({ status: "warn", fix: "Reconnect needed: fermix plugins auth reauthorize github" });
  });

  test("a live token, or a stale one that can refresh, needs nothing", async () => {
    const h = home();
    h.writeConfig('[fermix_core.plugins]\nenabled = ["github", "notion"]\n');
    writeAuth(h, { github: fresh, notion: { ...stale, refresh_token: "r" } });
    const { rows } = await runDoctor(doctorDeps(h, { now: () => NOW }), [pluginsCheck]);
    expect(rows).toEqual([
      {
        id: "plugins",
        title: "plugins",
        status: "ok",
        detail: "2 enabled (github, notion), no sign-in gone stale; --full checks each one's readiness",
      },
    ]);
  });

  test("a token for a plugin that is not enabled is not reported", () => {
    const h = home();
    writeAuth(h, { github: stale });
    expect(pluginsNeedingReconnect({}, `${h.home}/auth.json`, new Date(NOW))).toEqual([]);
  });

  test("a malformed auth.json warns with the way out", async () => {
    const h = home();
    h.writeConfig('[fermix_core.plugins]\nenabled = ["github"]\n');
    writeFileSync(`${h.home}/auth.json`, "{not json");
    const { rows } = await runDoctor(doctorDeps(h), [pluginsCheck]);
    expect(rows[0]).toMatchObject({
      id: "plugins.auth",
      status: "warn",
      detail: "~/h/auth.json is not valid JSON; move it aside and log in to each plugin again",
    });
  });
});

describe("doctor --full: each enabled plugin's readiness ladder", () => {
  test("ready, reconnect, missing secret, not installed and bundled-not-unpacked", async () => {
    const h = home();
    const paths = fermixPaths(h.home);
    const secrets = createSecretStore({ secretsDir: paths.secrets, prefer: "file" });
    const host = createPluginHost({
      paths,
      coreVersion: VERSION,
      catalog: () => loadCatalog(),
      store: createPluginStore({ paths: paths.plugins }),
      secrets,
    });
    await host.install("github");
    await host.install("slack");
    await host.install("discord");
    await secrets.store("PLUGIN_DISCORD_API_KEY", DISCORD_TOKEN);
    h.writeConfig(
      [
        "[fermix_core.plugins]",
        'enabled = ["github", "slack", "discord", "notion", "gmail"]',
        "[fermix_core.plugin_secrets]",
        'discord = "@keyring"',
        "[fermix_core.oauth.github]",
        'client_id = "Iv1.abc"',
        'client_secret = "shh-client-secret-value"',
      ].join("\n"),
    );
    writeAuth(h, { github: stale });
    const report = await runDoctor(doctorDeps(h, { full: true, now: () => NOW }), [pluginsCheck]);
    const byId = Object.fromEntries(report.rows.map((r) => [r.id, r]));
    expect(Object.keys(byId).sort()).toEqual([
      "plugins.discord",
      "plugins.github",
      "plugins.gmail",
      "plugins.notion",
      "plugins.slack",
    ]);
    expect(byId["plugins.github"]).toMatchObject({
      status: "warn",
      fix: "Reconnect needed: fermix plugins auth reauthorize github",
    });
    expect(byId["plugins.slack"]).toMatchObject({
      status: "warn",
      fix: 'echo "$TOKEN" | fermix plugins auth set slack',
    });
    expect(byId["plugins.slack"]!.detail).toMatch(/^slack \S+ \(installed\): needs secret$/);
    expect(byId["plugins.notion"]).toMatchObject({ status: "warn", fix: "fermix plugins install notion" });
    expect(byId["plugins.gmail"]).toMatchObject({ status: "ok", detail: "gmail (bundled): unpacked when first used" });
    expect(byId["plugins.discord"]).toMatchObject({ status: "ok" });
    expect(byId["plugins.discord"]!.detail).toMatch(/^discord \S+ \(installed\): ready$/);
    const text = JSON.stringify(report);
    expect(text).not.toContain(DISCORD_TOKEN);
    expect(text).not.toContain(ACCESS);
    expect(text).not.toContain("shh-client-secret-value");
  });
});
