import { describe, expect, test } from "bun:test";
import type { ChannelCard, ChannelsWeb } from "../../../src/web/channel-deps.ts";
import type { WebDeps } from "../../../src/web/page.ts";
import { channelsPage } from "../../../src/web/pages/channels.ts";
import { pluginsPage } from "../../../src/web/pages/plugins.ts";
import type { PluginAction, PluginCard, PluginsWeb } from "../../../src/web/plugin-deps.ts";

const KEY = "sk-plugin-key-never-in-html-0123456789";
const TOKEN = "123456789:AAchannelTOKENneverINhtml_abcdefghij";

function fakeDeps(over: { plugins?: Partial<PluginsWeb>; channels?: Partial<ChannelsWeb> } = {}) {
  const acted: PluginAction[] = [];
  const saved: Array<[string, Record<string, string>]> = [];
  const plugins: PluginCard[] = [
    {
      name: "slack",
      description: "Slack workspace",
      auth: "api_key",
      source: "catalog",
      version: "1.0.0",
      enabled: false,
      status: "disabled",
      secret: "missing",
    },
    {
      name: "gmail",
      description: "Mail",
      auth: "oauth2",
      source: "bundled",
      version: "1.0.0",
      enabled: true,
      status: "needs_auth",
      fix: "fermix plugins auth login gmail",
    },
    {
      name: "notion",
      description: "Notes",
      auth: "api_key",
      source: "installed",
      version: "1.0.0",
      enabled: true,
      status: "ready",
      secret: "set",
    },
  ];
  const channels: ChannelCard[] = [
    {
      name: "telegram",
      enabled: true,
      state: {
        name: "telegram",
        state: "running",
        connected: true,
        last_update_at: null,
        degraded: null,
        reason: null,
      },
      ids: [{ key: "owner_user_id", label: "Your Telegram user id", value: "42" }],
      secrets: [{ key: "bot_token", label: "Bot token", set: true }],
      editable: true,
    },
    { name: "signal", enabled: false, ids: [], secrets: [], editable: false },
  ];
  const deps = {
    plugins: {
      list: async () => ({ daemon: true, plugins }),
      act: async (a: PluginAction) => {
        acted.push(a);
        if (a.action === "set_key" && a.secret === "bad") throw new Error(`refused key ${a.secret}`);
        return `${a.name} ${a.action} done`;
      },
      ...over.plugins,
    },
    channels: {
      list: async () => channels,
      save: async (name: string, fields: Record<string, string>) => {
        saved.push([name, fields]);
        if (fields.bot_token === "wrong") throw new Error("Telegram refused the bot token wrong");
        return `${name} saved`;
      },
      test: async () => ({ ok: true as const, detail: "@fermix_bot" }),
      ...over.channels,
    },
  } as unknown as WebDeps;
  return { deps, acted, saved };
}

const ctx = (o: { error?: string } = {}) => ({ csrf: "tok", query: new URLSearchParams(), ...o });

describe("Plugins page", () => {
  test("cards with statuses, install for catalog ones, a never-filled key input, the OAuth command", async () => {
    const { deps } = fakeDeps();
    const out = (await pluginsPage.render(deps, ctx())).html;
    expect(out).toContain("slack");
    expect(out).toContain('name="action" value="install"');
    expect(out).toContain("needs_auth");
    expect(out).toContain("fermix plugins auth login gmail");
    expect(out).toContain('<strong class="ok">ready</strong>');
    expect(out).toContain("API key (set)");
    expect(out).toContain("API key (not set)");
    expect(out).toMatch(/type="password" name="secret" autocomplete="off" required>/);
    expect(out).not.toContain(KEY);
    // one install form only (slack): the bundled and installed ones are on this machine
    expect(out.split('value="install"').length).toBe(2);
  });

  test("submit: actions through deps; a refusal's message never echoes the key", async () => {
    const { deps, acted } = fakeDeps();
    const form = (o: Record<string, string>) => new URLSearchParams(o);
    expect(await pluginsPage.submit!(form({ name: "slack", action: "install" }), deps)).toEqual({
      ok: true,
      notice: "slack install done",
    });
    expect(
      await pluginsPage.submit!(form({ name: "slack", action: "set_key", secret: ` ${KEY} ` }), deps),
    ).toMatchObject({ ok: true });
    expect(acted[1]).toEqual({ action: "set_key", name: "slack", secret: KEY });
    const bad = await pluginsPage.submit!(form({ name: "slack", action: "set_key", secret: "bad" }), deps);
    expect(bad).toEqual({ ok: false, error: "refused key [redacted]" });
    expect(await pluginsPage.submit!(form({ name: "slack", action: "set_key", secret: "" }), deps)).toMatchObject({
      ok: false,
    });
    expect(await pluginsPage.submit!(form({ name: "../x", action: "enable" }), deps)).toMatchObject({ ok: false });
    expect(await pluginsPage.submit!(form({ name: "slack", action: "uninstall" }), deps)).toMatchObject({ ok: false });
    expect(acted.length).toBe(3);
  });

  test("the notice and error of the last post are shown, escaped", async () => {
    const { deps } = fakeDeps();
    const out = (await pluginsPage.render(deps, ctx({ error: "<b>no</b>" }))).html;
    expect(out).toContain("&lt;b&gt;no&lt;/b&gt;");
  });
});

describe("Channels page", () => {
  test("a card per channel: state, owner id, token field never filled, Test, the restart notice", async () => {
    const { deps } = fakeDeps();
    const out = (await channelsPage.render(deps, ctx())).html;
    expect(out).toContain("fermix restart");
    expect(out).toContain('<strong class="ok">running</strong>');
    expect(out).toContain('value="42"');
    expect(out).toContain('Bot token (set) <input type="password" name="bot_token" autocomplete="off">');
    expect(out).toContain("fermix setup --channel signal");
    expect(out.split('value="test"').length).toBe(3);
    expect(out).not.toContain(TOKEN);
  });

  test("save and test go through deps; a refusal never echoes the token", async () => {
    const { deps, saved } = fakeDeps();
    const form = (o: Record<string, string>) => new URLSearchParams(o);
    const ok = await channelsPage.submit!(
      form({ name: "telegram", action: "save", owner_user_id: "7", bot_token: TOKEN }),
      deps,
    );
    expect(ok).toEqual({ ok: true, notice: "telegram saved" });
    expect(saved[0]).toEqual(["telegram", { owner_user_id: "7", bot_token: TOKEN }]);
    const bad = await channelsPage.submit!(form({ name: "telegram", action: "save", bot_token: "wrong" }), deps);
    expect(bad).toEqual({ ok: false, error: "Telegram refused the bot token [redacted]" });
    expect(await channelsPage.submit!(form({ name: "telegram", action: "test" }), deps)).toEqual({
      ok: true,
      notice: "telegram: ok: @fermix_bot",
    });
    expect(await channelsPage.submit!(form({ name: "irc", action: "test" }), deps)).toMatchObject({ ok: false });
    const { deps: failing } = fakeDeps({
      channels: { test: async () => ({ ok: false as const, detail: "Unauthorized", fix: "a new token" }) },
    });
    expect(await channelsPage.submit!(form({ name: "telegram", action: "test" }), failing)).toEqual({
      ok: false,
      error: "telegram: Unauthorized (fix: a new token)",
    });
  });
});
