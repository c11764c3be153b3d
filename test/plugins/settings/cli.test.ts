import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../../src/config/load.ts";
import { createSecretStore } from "../../../src/config/secret-store.ts";
import { resolveSecret } from "../../../src/config/secrets.ts";
import { createLog } from "../../../src/observability/log.ts";
import type { ManifestView, SettingsCliDeps } from "../../../src/plugins/settings/cli.ts";
import * as cli from "../../../src/plugins/settings/cli.ts";
import { readSecretInput } from "../../../src/plugins/settings/read-secret-input.ts";
import { tempHome } from "../../fixture/home.ts";
import { fakeKeyring } from "./_fake-keyring.ts";

const TOKEN = "xoxb-4242-do-not-print-me";
const CONFIG = `# hand written
[fermix_core.plugins]
enabled = ["github"] # work

[fermix_core.plugin_secrets]
# agentmail's key lives in the keychain
agentmail = "@keyring"
`;
const MANIFESTS: Record<string, ManifestView> = {
  slack: {
    auth: { type: "api_key", prompt: "Slack bot token" },
    config: [
      { key: "DEFAULT_CHANNEL", required: true, prompt: "Channel" },
      { key: "ALLOW_WRITES", kind: "boolean" },
    ],
  },
  github: { auth: { type: "oauth2", provider: "github" } },
  obsidian: { auth: { type: "none" } },
  agentmail: { auth: { type: "api_key" } },
};

function setup(opts: { broken?: boolean; config?: string } = {}) {
  const h = tempHome();
  const configFile = h.writeConfig(opts.config ?? CONFIG);
  const keyring = fakeKeyring({ broken: opts.broken });
  const secretsDir = join(h.home, "secrets");
  const store = createSecretStore({ secretsDir, platform: "linux", run: keyring.run });
  const log = createLog({ file: join(h.home, "logs", "fermix.log"), level: "debug" });
  const deps = (input = `${TOKEN}\n`): SettingsCliDeps => ({
    configFile,
    config: parseConfig(readFileSync(configFile, "utf8"), configFile),
    store,
    manifestFor: (name) => MANIFESTS[name],
    known: Object.keys(MANIFESTS),
    log,
    readSecret: (name, prompt) =>
      readSecretInput({
        name,
        prompt,
        io: { stdinKind: async () => "pipe", readStdin: async () => input, promptHidden: async () => input },
      }),
  });
  const reads = { env: {}, secretsDir, platform: "linux" as const, run: keyring.run };
  return { h, configFile, keyring, store, deps, reads, read: () => readFileSync(configFile, "utf8") };
}

/** Every file under the temp home whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile() && readFileSync(p, "utf8").includes(needle));
}

describe("fermix plugins auth", () => {
  test("auth set stores the piped token in the keyring; config.toml, outputs and the log never hold it", async () => {
    const s = setup();
    await using _ = s.h;
    const result = await cli.authSet("slack", s.deps());
    expect(result.text).toBe("slack\tapi_key\tset\tkeyring\n");
    expect(result.json).toEqual({ plugin: "slack", auth: "api_key", state: "set", stored_in: "keyring" });
    expect(result.notes).toEqual(["stored in the OS keyring", "slack is not enabled: fermix plugins enable slack"]);
    expect(s.read()).toBe(`${CONFIG}slack = "@keyring"\n`);
    expect(s.keyring.calls.some((c) => c.argv.join(" ").includes(TOKEN))).toBe(false);
    expect(resolveSecret("@keyring", "PLUGIN_SLACK_API_KEY", s.reads)).toBe(TOKEN);

    const status = await cli.authStatus("slack", s.deps());
    const outputs = [result, status].map((r) => `${r.text}${JSON.stringify(r.json)}${(r.notes ?? []).join("")}`);
    expect(outputs.join("")).not.toContain(TOKEN);
    expect(readFileSync(join(s.h.home, "logs", "fermix.log"), "utf8")).toContain("plugin secret stored");
    expect(filesContaining(s.h.userHome, TOKEN)).toEqual([]);
  });

  test("without a keyring writer the token lands only in the 0600 file store", async () => {
    const s = setup({ broken: true });
    await using _ = s.h;
    const result = await cli.authSet("slack", s.deps());
    expect(result.text).toBe("slack\tapi_key\tset\tfile\n");
    const file = join(s.h.home, "secrets", "PLUGIN_SLACK_API_KEY");
    expect(filesContaining(s.h.userHome, TOKEN)).toEqual([file]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(s.h.home, "secrets")).mode & 0o777).toBe(0o700);
    expect(resolveSecret("@keyring", "PLUGIN_SLACK_API_KEY", s.reads)).toBe(TOKEN);
  });

  test("auth set moves a plaintext secret out of config.toml; status flagged it before", async () => {
    const s = setup({ config: `${CONFIG}slack = "${TOKEN}" # oops\n` });
    await using _ = s.h;
    const before = await cli.authStatus("slack", s.deps());
    expect(before.text).toBe("slack\tapi_key\tplaintext\n");
    expect(before.notes).toEqual([
      "slack: the secret is plaintext in config.toml; run fermix plugins auth set slack to move it to the keychain",
    ]);
    expect(before.text + JSON.stringify(before.json)).not.toContain(TOKEN);
    await cli.authSet("slack", s.deps());
    expect(s.read()).toBe(`${CONFIG}slack = "@keyring" # oops\n`);
  });

  test("auth clear removes the keyring entry, the file and the config line", async () => {
    const s = setup();
    await using _ = s.h;
    await cli.authSet("slack", s.deps());
    await createSecretStore({ secretsDir: join(s.h.home, "secrets"), prefer: "file" }).store(
      "PLUGIN_SLACK_API_KEY",
      TOKEN,
    );
    const result = await cli.authClear("slack", s.deps());
    expect(result.text).toBe("slack\tapi_key\tmissing\n");
    expect(s.read()).toBe(CONFIG);
    expect(s.keyring.items.size).toBe(0);
    expect(filesContaining(s.h.userHome, TOKEN)).toEqual([]);
    expect((await cli.authStatus("slack", s.deps())).text).toBe("slack\tapi_key\tmissing\n");
  });

  test("auth status lists every plugin with its auth type and state", async () => {
    const s = setup();
    await using _ = s.h;
    await cli.authSet("agentmail", s.deps("am-key\n"));
    const result = await cli.authStatus(undefined, s.deps());
    expect(result.text).toBe(
      [
        "agentmail\tapi_key\tset",
        "github\toauth2\tneeds_client_config",
        "obsidian\tnone\tnot_needed",
        "slack\tapi_key\tmissing",
        "",
      ].join("\n"),
    );
  });

  test("refusals: a value on argv, an oauth2 plugin, an unknown plugin (naming the known ones)", async () => {
    const s = setup();
    await using _ = s.h;
    const argv = { ...s.deps(), readSecret: (name: string) => readSecretInput({ name, extra: [TOKEN] }) };
    const refused = await cli.authSet("slack", argv).catch((e) => e);
    expect(refused.code).toBe("usage");
    expect(refused.message).not.toContain(TOKEN);
    await expect(cli.authSet("github", s.deps())).rejects.toThrow("connect it with fermix plugins auth login github");
    await expect(cli.authSet("nope", s.deps())).rejects.toMatchObject({
      code: "unknown_plugin",
      message: 'unknown plugin "nope" (known: agentmail, github, obsidian, slack)',
    });
    expect(s.read()).toBe(CONFIG);
  });
});

describe("fermix plugins config / enable / disable", () => {
  test("config set then config shows declared keys, values and whether they are required", async () => {
    const s = setup();
    await using _ = s.h;
    expect((await cli.configSet("slack", "default_channel", "ops", s.deps())).text).toBe(
      "slack\tDEFAULT_CHANNEL\tops\n",
    );
    const shown = await cli.configShow("slack", s.deps());
    expect(shown.text).toBe("slack\tDEFAULT_CHANNEL\tops\trequired\nslack\tALLOW_WRITES\t(unset)\toptional\n");
    expect(s.read()).toBe(`${CONFIG}\n[fermix_core.plugins.slack]\nDEFAULT_CHANNEL = "ops"\n`);
    await expect(cli.configSet("slack", "ALLOW_WRITES", "maybe", s.deps())).rejects.toMatchObject({
      code: "invalid_argument",
    });
  });

  test("enable says what is still missing; disable works for a listed plugin whose manifest is gone", async () => {
    const s = setup();
    await using _ = s.h;
    const enabled = await cli.enable("slack", s.deps());
    expect(enabled.text).toBe("slack\tenabled\n");
    expect(enabled.notes).toEqual([
      "slack is needs_config: fermix plugins config slack (then config set slack KEY VALUE)",
    ]);
    expect(s.read()).toBe(CONFIG.replace(`["github"]`, `["github", "slack"]`));
    await cli.configSet("slack", "DEFAULT_CHANNEL", "ops", s.deps());
    expect((await cli.enable("slack", s.deps())).notes).toEqual([
      "slack was already enabled",
      'slack is needs_secret: echo "$TOKEN" | fermix plugins auth set slack',
    ]);
    const gone = () => ({ ...s.deps(), manifestFor: () => undefined });
    expect((await cli.disable("slack", gone())).json).toEqual({ plugin: "slack", enabled: false, changed: true });
    expect(s.read()).toBe(`${CONFIG}\n[fermix_core.plugins.slack]\nDEFAULT_CHANNEL = "ops"\n`);
    await expect(cli.disable("slack", gone())).rejects.toMatchObject({ code: "unknown_plugin" });
  });
});
