import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config/load.ts";
import { outboundServers } from "../../../src/mcp/outbound/server-config.ts";
import { outboundToolNames } from "../../../src/mcp/outbound/tool-names.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";

const defer = cleanupAfterEach();

async function load(toml: string) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return loadConfig(h.writeConfig(toml));
}

describe("[mcp.servers.<name>] in config.toml", () => {
  test("a command server and a url server with a SecretRef header, per-tool classes, load", async () => {
    const config = await load(
      [
        "[mcp.servers.files]",
        'command = "npx"',
        'args = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]',
        'pass_env = ["NODE_OPTIONS"]',
        "[mcp.servers.files.tools.read_file]",
        'policy_class = "read_only"',
        "[mcp.servers.remote]",
        'url = "http://127.0.0.1:3001/mcp"',
        'policy_class = "network"',
        "[mcp.servers.remote.headers]",
        'Authorization = "@keyring"',
      ].join("\n"),
    );
    expect(config.mcp?.servers?.files?.tools?.read_file?.policy_class).toBe("read_only");
    expect(config.mcp?.servers?.remote?.headers?.Authorization).toBe("@keyring");
  });

  test.each([
    [
      'command = "node"\nurl = "http://127.0.0.1:1/mcp"',
      /\[mcp\.servers\.x\] url: expected either command .* or url .*not both/,
    ],
    ['args = ["a"]', /\[mcp\.servers\.x\] command: expected a command to run/],
    ['url = "http://127.0.0.1:1/mcp"\nargs = ["a"]', /\[mcp\.servers\.x\] args: expected no args for a url server/],
    [
      'command = "node"\nheaders = { A = "b" }',
      /\[mcp\.servers\.x\] headers: expected no headers for a command server/,
    ],
    ['command = "node"\nenv = { TOKEN = "$env:TOKEN" }', /\[mcp\.servers\.x\] env: .*list it in pass_env instead/],
    [
      'command = "node"\nenv = { A = "1" }\npass_env = ["A"]',
      /\[mcp\.servers\.x\] pass_env: .*A set in env or passed in pass_env, not both/,
    ],
    [
      'command = "node"\npolicy_class = "admin"',
      /\[mcp\.servers\.x\] policy_class: expected "read_only", "read_write"/,
    ],
    ['command = "node"\ncolour = "red"', /\[mcp\.servers\.x\] unknown key "colour"/],
    ['url = "ftp://example.com/mcp"', /\[mcp\.servers\.x\] url: expected an http\(s\) URL/],
  ])("%s fails load, naming the key", async (body, message) => {
    await expect(load(`[mcp.servers.x]\n${body}\n`)).rejects.toThrow(message);
  });

  test("names are sanitised; two that sanitise alike are a problem named with the fix", async () => {
    const config = await load('[mcp.servers.My-Files]\ncommand = "node"\n[mcp.servers.my_files]\ncommand = "node"\n');
    const [first, second] = outboundServers(config);
    expect(first).toMatchObject({ name: "my_files", configName: "My-Files" });
    expect(first!.problem).toBeUndefined();
    expect(second!.problem).toContain("both become mcp_my_files_…; rename one");
  });
});

describe("mcp_<server>_<tool> names", () => {
  test("sanitised to [a-z0-9_], at most 64 bytes, collisions and cut names hashed", () => {
    const long = "a".repeat(80);
    const names = outboundToolNames("everything", ["echo", "get-sum", "getSum", long, `${long}b`]);
    expect(names[0]).toBe("mcp_everything_echo");
    expect(names[1]).toBe("mcp_everything_get_sum");
    expect(names[2]).toMatch(/^mcp_everything_get_sum_[0-9a-f]{8}$/);
    for (const name of names) expect(name).toMatch(/^[a-z0-9_]{1,64}$/);
    expect(names[3]).toMatch(/_[0-9a-f]{8}$/);
    expect(names[3]).not.toBe(names[4]);
    expect(new Set(names).size).toBe(names.length);
    // Stable whatever the order: a name does not depend on its neighbours unless they collide.
    expect(outboundToolNames("everything", ["getSum", "echo"])[0]).toBe("mcp_everything_get_sum");
  });
});
