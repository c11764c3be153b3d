import { readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Manifest } from "../../../src/plugins/manifest/schema.ts";
import { validatePluginDir } from "../../../src/plugins/manifest/validate.ts";
import { VERSION } from "../../../src/version.ts";

export const FAKE_SERVER = join(import.meta.dir, "fake-mcp-server.mjs");

/** A temp directory removed by the returned cleanup. */
export async function tempDir(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Validates a plugin directory as installed and returns its typed manifest, failing loudly otherwise. */
export async function loadManifest(dir: string, name: string): Promise<Manifest> {
  const result = await validatePluginDir(dir, { expectedName: name, coreVersion: VERSION });
  if (!result.ok) throw new Error(`${dir}: ${result.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  return result.manifest;
}

/**
 * Writes an mcp plugin at `<root>/<name>` whose runtime is `node` and whose server is `src/server.mjs`
 * (the fake server unless `args` says otherwise), with config keys MODE, PID_LOG, HELPER and LIST_CHANGED.
 */
export async function writeMcpPlugin(
  root: string,
  name: string,
  opts: { args?: string[]; passEnv?: string[]; copyFake?: boolean } = {},
): Promise<{ dir: string; manifest: Manifest }> {
  const dir = join(root, name);
  await mkdir(join(dir, "src"), { recursive: true });
  if (opts.copyFake !== false) await copyFile(FAKE_SERVER, join(dir, "src", "server.mjs"));
  const manifest = {
    schema_version: 2,
    name,
    display_name: name,
    description: "A plugin for MCP rail tests.",
    category: "developer",
    version: "1.0.0",
    min_core_version: "0.1.0",
    plugin_api: 2,
    runtime: { kind: "node", command: "node", args: opts.args ?? ["src/server.mjs"], pass_env: opts.passEnv ?? [] },
    auth: { type: "none" },
    config: [
      { key: "MODE", prompt: "silent or normal" },
      { key: "PID_LOG", prompt: "Where the server notes its pids" },
      { key: "HELPER", prompt: "Spawn a helper process", kind: "boolean" },
      { key: "LIST_CHANGED", prompt: "Announce tool list changes (offers add_tool)", kind: "boolean" },
    ],
    tools: [{ name: `${name}_echo`, description: "Echo a message (preview).", read_only: true, rail: "mcp" }],
  };
  await writeFile(join(dir, "plugin.json"), JSON.stringify(manifest, null, 2));
  return { dir, manifest: await loadManifest(dir, name) };
}

export async function loggedPids(file: string): Promise<number[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).map(Number);
}

/**
 * True once a process no longer runs. A killed helper is reparented to init, which reaps it in its own
 * time; until then it is a zombie (state Z) that `kill(pid, 0)` still finds, so that counts as gone too.
 */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** The MCP reference server from node_modules, run over stdio. */
export const EVERYTHING = join(
  import.meta.dir,
  "../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

/**
 * server-everything as an mcp-rail plugin folder `<root>/everything` that declares one of its tools (echo);
 * its manifest passes the install-time rules as written.
 */
export async function writeEverythingPlugin(root: string): Promise<{ dir: string; manifest: Manifest }> {
  const dir = join(root, "everything");
  await mkdir(dir, { recursive: true });
  const manifest = {
    schema_version: 2,
    name: "everything",
    display_name: "Everything",
    description: "The MCP reference test server.",
    category: "developer",
    version: "1.0.0",
    min_core_version: "0.1.0",
    plugin_api: 2,
    runtime: { kind: "node", command: "node", args: [EVERYTHING, "stdio"] },
    tools: [{ name: "everything_echo", description: "Echo a message.", read_only: true, rail: "mcp" }],
  };
  await writeFile(join(dir, "plugin.json"), JSON.stringify(manifest));
  return { dir, manifest: await loadManifest(dir, "everything") };
}

/** A plugin `<root>/crash` whose server notes its pid, writes one line to stderr and exits with code 7 at once. */
export async function writeCrashingPlugin(root: string): Promise<{ dir: string; manifest: Manifest }> {
  const plugin = await writeMcpPlugin(root, "crash", { copyFake: false });
  await writeFile(
    join(plugin.dir, "src", "server.mjs"),
    [
      'import { appendFileSync } from "node:fs";',
      "appendFileSync(process.env.PID_LOG, String(process.pid) + '\\n');",
      "console.error(\"Error: Cannot find module 'left-pad'\");",
      "process.exit(7);",
    ].join("\n"),
  );
  return plugin;
}
