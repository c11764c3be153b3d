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
