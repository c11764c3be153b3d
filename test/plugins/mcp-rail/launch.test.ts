import { expect, test } from "bun:test";
import { chmod, copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { processSpec, serverEnv, vendorTarget } from "../../../src/plugins/mcp-rail/launch.ts";
import { createMcpSupervisor } from "../../../src/plugins/mcp-rail/supervisor.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { FAKE_SERVER, loadManifest, tempDir, writeMcpPlugin } from "./_fixture.ts";

const defer = cleanupAfterEach();

async function root() {
  const dir = await tempDir("fermix-mcp-launch-");
  defer(dir.remove);
  return dir.path;
}

test("a bare command is found on the server's PATH and runs in the plugin's folder", async () => {
  const plugin = await writeMcpPlugin(await root(), "bare");
  const spec = processSpec({ name: "bare", ...plugin, configValues: { MODE: "normal" }, env: process.env });
  expect(spec.command).toBe(Bun.which("node")!);
  expect(spec.args).toEqual(["src/server.mjs"]);
  expect(spec.cwd).toBe(plugin.dir);
  expect(spec.env.MODE).toBe("normal");
});

test("serverEnv falls back to the system PATH and C.UTF-8 when the daemon has none", async () => {
  const plugin = await writeMcpPlugin(await root(), "bare");
  const env = serverEnv({ name: "bare", ...plugin, configValues: {}, env: {} });
  expect(env.PATH).toContain("/usr/bin");
  expect(env.LANG).toBe("C.UTF-8");
  expect(env.HOME).toBeUndefined();
});

test.skipIf(!vendorTarget())("a vendored command runs from bin/<target>/", async () => {
  const dir = join(await root(), "vendored");
  await mkdir(join(dir, "bin", vendorTarget()!), { recursive: true });
  await mkdir(join(dir, "src"));
  await copyFile(FAKE_SERVER, join(dir, "src", "server.mjs"));
  const launcher = join(dir, "bin", vendorTarget()!, "serve");
  await writeFile(launcher, `#!/bin/sh\nexec node "$(dirname "$0")/../../src/server.mjs"\n`);
  await chmod(launcher, 0o755);
  await writeFile(
    join(dir, "plugin.json"),
    JSON.stringify({
      schema_version: 2,
      name: "vendored",
      display_name: "Vendored",
      description: "A vendored binary.",
      category: "developer",
      version: "1.0.0",
      min_core_version: "0.1.0",
      plugin_api: 2,
      runtime: { kind: "binary", command: "serve", vendored: true },
      config: [{ key: "MODE", prompt: "mode" }],
      tools: [{ name: "vendored_echo", description: "Echo.", read_only: true, rail: "mcp" }],
    }),
  );
  const manifest = await loadManifest(dir, "vendored");
  const plugin = { name: "vendored", dir, manifest, configValues: { MODE: "normal" }, env: process.env };
  expect(processSpec(plugin).command).toBe(launcher);

  const supervisor = createMcpSupervisor();
  defer(() => supervisor.stopAll());
  const handle = await supervisor.start(plugin);
  await handle.ready();
  expect(handle.status).toBe("ready");
  expect(await handle.call("vendored_echo", { message: "v" })).toEqual({ content: "echo: v" });
});

test("a runtime that is not installed is quarantined at once, without retries", async () => {
  const plugin = await writeMcpPlugin(await root(), "bare");
  const manifest = { ...plugin.manifest, runtime: { ...plugin.manifest.runtime!, command: "no-such-runtime-x" } };
  const sleeps: number[] = [];
  const supervisor = createMcpSupervisor({ sleep: async (ms) => void sleeps.push(ms) });
  defer(() => supervisor.stopAll());
  const handle = await supervisor.start({
    name: "bare",
    dir: plugin.dir,
    manifest,
    configValues: {},
    env: process.env,
  });
  await handle.ready();
  expect(handle.status).toBe("quarantined");
  expect(handle.attempts).toBe(0);
  expect(handle.reason).toContain("no-such-runtime-x is not on PATH");
  expect(sleeps).toEqual([]);
});
