import { describe, expect, test } from "bun:test";
import { pluginsSection, unavailablePluginTool } from "../../src/plugins/prompt-section.ts";
import { type ReadinessInput, readiness, statusFix } from "../../src/plugins/readiness.ts";

const base: ReadinessInput = {
  enabled: true,
  manifest: { auth: { type: "none" } },
  configValues: {},
  secretSet: false,
  oauthClientConfigured: false,
};

describe("the readiness ladder, first match wins", () => {
  test.each<[string, Partial<ReadinessInput>, string]>([
    ["disabled wins over everything", { enabled: false, incompatible: true }, "disabled"],
    ["incompatible install", { incompatible: true, manifest: undefined }, "incompatible"],
    ["no loadable manifest", { manifest: undefined }, "not_installed"],
    ["mcp runtime missing", { runtimeMissing: true }, "missing_host_runtime"],
    [
      "a required config value missing",
      { manifest: { auth: { type: "none" }, config: [{ key: "VAULT_PATH", required: true }] } },
      "needs_config",
    ],
    [
      "an empty required value",
      {
        manifest: { auth: { type: "none" }, config: [{ key: "VAULT_PATH", required: true }] },
        configValues: { VAULT_PATH: " " },
      },
      "needs_config",
    ],
    ["auth none", {}, "ready"],
    ["api_key without a secret", { manifest: { auth: { type: "api_key" } } }, "needs_secret"],
    ["api_key with a secret", { manifest: { auth: { type: "api_key" } }, secretSet: true }, "ready"],
    ["oauth without a client", { manifest: { auth: { type: "oauth2", provider: "github" } } }, "needs_client_config"],
    ["oauth not connected", { manifest: { auth: { type: "oauth2" } }, oauthClientConfigured: true }, "needs_auth"],
    [
      "oauth token invalidated",
      { manifest: { auth: { type: "oauth2" } }, oauthClientConfigured: true, token: "invalidated" },
      "reauthorization_required",
    ],
    [
      "oauth connected",
      { manifest: { auth: { type: "oauth2" } }, oauthClientConfigured: true, token: "valid" },
      "ready",
    ],
  ])("%s", (_name, patch, status) => {
    expect(readiness({ ...base, ...patch })).toBe(status as any);
  });

  test("every status names its fix", () => {
    expect(statusFix("slack", "needs_secret")).toBe('echo "$TOKEN" | fermix plugins auth set slack');
    expect(statusFix("github", "needs_client_config", "github")).toContain("[fermix_core.oauth.github]");
  });
});

describe("## Plugins", () => {
  const plugins = [
    { name: "slack", enabled: true, status: "ready" as const, tools: ["slack_list_channels", "slack_read_channel"] },
    { name: "github", enabled: true, status: "needs_auth" as const, tools: ["github_list_issues"] },
    { name: "notion", enabled: false, status: "disabled" as const, tools: ["notion_search"] },
  ];

  test("lists ready tools and status= for enabled plugins that are not ready; disabled ones are absent", () => {
    const section = pluginsSection(plugins);
    expect(section).toContain("- slack: slack_list_channels, slack_read_channel");
    expect(section).toContain("- github: status=needs_auth");
    expect(section).not.toContain("notion");
    expect(pluginsSection([])).toBe("");
  });

  test("a disabled plugin's tool is refused with the enable hint", () => {
    expect(unavailablePluginTool("notion_search", plugins)).toBe(
      "notion_search belongs to the notion plugin, which is disabled; enable it with fermix plugins enable notion.",
    );
    expect(unavailablePluginTool("github_list_issues", plugins)).toContain("status=needs_auth");
    expect(unavailablePluginTool("file_read", plugins)).toBeUndefined();
  });
});

describe("## Plugins with MCP servers that start in the background", () => {
  const reason = "2 discovery attempts failed; the last: no answer to discovery within 10 s";
  const fix = "fermix plugins doctor hung shows why; fix that, then fermix plugins reload";
  const plugins = [
    { name: "everything", enabled: true, status: "ready" as const, tools: ["everything_echo", "everything_add"] },
    {
      name: "obsidian",
      enabled: true,
      status: "starting" as const,
      detail: "discovery attempt 2/5",
      tools: ["obsidian_search", "obsidian_read"],
    },
    { name: "fresh", enabled: true, status: "starting" as const, tools: [] },
    { name: "hung", enabled: true, status: "quarantined" as const, detail: reason, fix, tools: [] },
    {
      name: "github",
      enabled: true,
      status: "needs_auth" as const,
      fix: "fermix plugins auth login github",
      tools: ["github_list_issues"],
    },
  ];

  test("a ready server lists its tools; a starting one its attempt and tools; a quarantined one why and the fix", () => {
    const lines = pluginsSection(plugins).split("\n");
    expect(lines).toContain("- everything: everything_echo, everything_add");
    expect(lines).toContain(
      "- obsidian: status=starting (discovery attempt 2/5); its tools (obsidian_search, obsidian_read) work once it is up — if a call says it is starting, try again in a moment",
    );
    expect(lines).toContain(
      "- fresh: status=starting (launching); its tools (not listed yet) work once it is up — if a call says it is starting, try again in a moment",
    );
    expect(lines).toContain(`- hung: status=quarantined (${reason}); fix: ${fix}`);
    expect(lines).toContain("- github: status=needs_auth; fix: fermix plugins auth login github");
  });

  test("a call to a quarantined plugin's tool gets the reason and the doctor command", () => {
    expect(unavailablePluginTool("hung_echo", plugins)).toBe(
      `hung_echo belongs to the hung plugin, which is quarantined: ${reason}. The owner can see why with: fermix plugins doctor hung`,
    );
  });

  test("a call to a starting plugin's tool is told to try again in a moment", () => {
    expect(unavailablePluginTool("obsidian_search", plugins)).toBe(
      "obsidian is starting (discovery attempt 2/5); try obsidian_search again in a moment.",
    );
    expect(unavailablePluginTool("fresh_echo", plugins)).toBe(
      "fresh is starting (launching); try fresh_echo again in a moment.",
    );
  });

  test("a call to a plugin that is not ready gets its status and the owner's fix", () => {
    expect(unavailablePluginTool("github_list_issues", plugins)).toBe(
      "github_list_issues belongs to the github plugin, which is not ready (status=needs_auth); the owner can fix it with: fermix plugins auth login github.",
    );
    expect(unavailablePluginTool("everything_echo", plugins)).toBeUndefined();
  });
});
