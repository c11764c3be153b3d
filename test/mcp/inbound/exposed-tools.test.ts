import { describe, expect, test } from "bun:test";
import { BUILTIN_TOOLS } from "../../../src/capabilities/builtins/registry.ts";
import { WEB_TOOLS } from "../../../src/capabilities/builtins/web-tools.ts";
import { loadConfig } from "../../../src/config/load.ts";
import type { Config } from "../../../src/config/schema.ts";
import { askExposed, exposedTools, inboundClass } from "../../../src/mcp/inbound/exposed-tools.ts";
import { inboundSettings } from "../../../src/mcp/inbound/settings.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";

const ALL = [...BUILTIN_TOOLS, ...WEB_TOOLS];
const names = (inbound: NonNullable<Config["mcp"]>["inbound"]) =>
  exposedTools(ALL, inboundSettings({ mcp: { inbound } })).map((t) => t.name);
const defer = cleanupAfterEach();

describe("which built-ins [mcp.inbound] exposes", () => {
  test("by default read_only and read_write: the workspace, memory, skills and jobs, not exec, network or chat tools", () => {
    const exposed = names({ enabled: true });
    for (const name of ["file_read", "file_write", "glob_search", "memory_store", "list_jobs", "skill_view"])
      expect(exposed).toContain(name);
    for (const name of ["shell", "subagents", "web_fetch", "web_search", "react", "send_attachment"])
      expect(exposed).not.toContain(name);
    expect(exposed).not.toContain("request_directory_access");
  });

  test("shell is exposed only when allowed_tools names it; the exec class alone is not enough", () => {
    expect(names({ expose_policy_classes: ["read_only", "exec"] })).not.toContain("shell");
    expect(names({ expose_policy_classes: ["read_only", "exec"] })).not.toContain("subagents");
    expect(names({ allowed_tools: ["shell"] })).toContain("shell");
    expect(names({ tools: { shell: { exposed: true } } })).toContain("shell");
  });

  test("classes narrow, denied_tools and exposed = false win over everything, descriptions can be overridden", () => {
    const readOnly = names({ expose_policy_classes: ["read_only"] });
    expect(readOnly).toContain("file_read");
    expect(readOnly).not.toContain("file_write");
    const network = exposedTools(ALL, inboundSettings({ mcp: { inbound: { expose_policy_classes: ["network"] } } }));
    expect(network.map((t) => t.name)).toEqual(expect.arrayContaining(["web_fetch", "web_search"]));
    expect(network.every((t) => inboundClass(t) === "network")).toBe(true);
    expect(names({ allowed_tools: ["shell"], denied_tools: ["shell", "file_read"] })).not.toContain("shell");
    expect(names({ denied_tools: ["file_read"] })).not.toContain("file_read");
    expect(names({ tools: { glob_search: { exposed: false } } })).not.toContain("glob_search");
    expect(names({ expose_kinds: [] })).toEqual([]);
    const settings = inboundSettings({ mcp: { inbound: { tools: { file_read: { description_override: "Read." } } } } });
    expect(exposedTools(ALL, settings).find((t) => t.name === "file_read")?.description).toBe("Read.");
  });

  test("ask is offered unless denied; each built-in maps to one coarse class", () => {
    expect(askExposed(inboundSettings({}))).toBe(true);
    expect(askExposed(inboundSettings({ mcp: { inbound: { denied_tools: ["ask"] } } }))).toBe(false);
    const byName = Object.fromEntries(ALL.map((t) => [t.name, inboundClass(t)]));
    expect(byName).toMatchObject({
      file_read: "read_only",
      file_write: "read_write",
      shell: "exec",
      web_fetch: "network",
    });
    expect(byName.subagents).toBe("exec");
    expect(byName.request_directory_access).toBeUndefined();
  });

  test("defaults: off, stdio, named fermix, /mcp", () => {
    const s = inboundSettings({});
    expect(s).toMatchObject({ enabled: false, transport: "stdio", serverName: "fermix", http: { path: "/mcp" } });
    expect(s.exposeClasses).toEqual(["read_only", "read_write"]);
  });
});

describe("[mcp.inbound] in config.toml", () => {
  const load = (toml: string) => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    return loadConfig(h.writeConfig(toml));
  };

  test("streamable_http without a bearer fails the load, naming [mcp.inbound.http] auth_token", async () => {
    await expect(load('[mcp.inbound]\nenabled = true\ntransport = "streamable_http"\n')).rejects.toThrow(
      /\[mcp\.inbound\.http\] auth_token: expected a bearer token/,
    );
    await expect(
      load('[mcp.inbound]\nenabled = true\ntransport = "streamable_http"\n[mcp.inbound.http]\npath = "/x"\n'),
    ).rejects.toThrow(/\[mcp\.inbound\.http\] auth_token/);
    const ok = await load(
      '[mcp.inbound]\nenabled = true\ntransport = "streamable_http"\n[mcp.inbound.http]\nauth_token = "@keyring"\n',
    );
    expect(ok.mcp?.inbound?.http?.auth_token).toBe("@keyring");
    // Off, or on stdio, the bearer is not needed.
    expect((await load('[mcp.inbound]\ntransport = "streamable_http"\n')).mcp?.inbound?.enabled).toBeUndefined();
  });

  test("a wrong transport, class or kind names the key", async () => {
    await expect(load('[mcp.inbound]\ntransport = "sse"\n')).rejects.toThrow(/\[mcp\.inbound\] transport/);
    await expect(load('[mcp.inbound]\nexpose_policy_classes = ["all"]\n')).rejects.toThrow(/expose_policy_classes/);
    await expect(load('[mcp.inbound]\nexpose_kinds = ["plugin"]\n')).rejects.toThrow(/expose_kinds/);
    await expect(load("[mcp.inbound]\nenable = true\n")).rejects.toThrow(/unknown key "enable"/);
  });
});
