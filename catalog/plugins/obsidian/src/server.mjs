// A minimal MCP server over stdio (newline-delimited JSON-RPC 2.0) for an Obsidian vault.
// No dependencies: the plugin ships as source and runs on the host's Node (18+).
// Every path is confined to the vault: resolved, checked, and re-checked after following links.
import { appendFile, mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { createInterface } from "node:readline";

const VAULT = process.env.VAULT_PATH;
const SKIP = new Set([".obsidian", ".trash", ".git", "node_modules"]);
const MAX_READ = 512 * 1024;

const tools = [
  tool(
    "search_notes",
    "Search note names and text in the vault; returns paths and matching lines.",
    {
      query: { type: "string" },
      limit: { type: "integer", default: 20 },
    },
    ["query"],
  ),
  tool("list_notes", "List notes and folders in a vault folder.", { folder: { type: "string", default: "" } }, []),
  tool("read_note", "Read a note by its path inside the vault.", { path: { type: "string" } }, ["path"]),
  tool(
    "create_note",
    "Create a new note; refuses to overwrite an existing one.",
    {
      path: { type: "string" },
      content: { type: "string" },
    },
    ["path", "content"],
  ),
  tool(
    "append_note",
    "Append text to the end of an existing note.",
    {
      path: { type: "string" },
      content: { type: "string" },
    },
    ["path", "content"],
  ),
];

function tool(name, description, properties, required) {
  return { name, description, inputSchema: { type: "object", properties, required } };
}

async function vaultRoot() {
  if (!VAULT)
    throw new Error("VAULT_PATH is not set; run: fermix plugins config set obsidian VAULT_PATH /path/to/vault");
  // The server runs in the plugin's folder, so a relative path would quietly name a folder inside the plugin.
  const path = VAULT.startsWith("~/") && process.env.HOME ? join(process.env.HOME, VAULT.slice(2)) : VAULT;
  if (!isAbsolute(path)) throw new Error(`VAULT_PATH must be an absolute path (got ${VAULT})`);
  return realpath(path).catch(() => {
    throw new Error(`VAULT_PATH ${VAULT} is not an existing folder`);
  });
}

function inside(root, path) {
  return path === root || path.startsWith(root + sep);
}

/** A vault-relative path → an absolute one inside the vault, or an error. */
async function locate(rel, { note = true, mustExist = true } = {}) {
  const root = await vaultRoot();
  let name = String(rel ?? "")
    .replace(/\\/g, "/")
    .replace(/^\/+/, "");
  if (note && !name.endsWith(".md")) name += ".md";
  const full = resolve(root, name);
  if (!inside(root, full)) throw new Error(`${rel} is outside the vault`);
  // Follow links on the deepest existing ancestor: a link must not lead out of the vault.
  let probe = full;
  while (!(await stat(probe).catch(() => null))) probe = dirname(probe);
  if (!inside(root, await realpath(probe))) throw new Error(`${rel} leads outside the vault`);
  if (mustExist && probe !== full) throw new Error(`${name} does not exist`);
  return { root, full, name };
}

async function* walk(root, dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith(".")) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(root, full);
    else if (entry.isFile() && entry.name.endsWith(".md")) yield full;
  }
}

const handlers = {
  async search_notes({ query, limit = 20 }) {
    const root = await vaultRoot();
    const needle = String(query).toLowerCase();
    const hits = [];
    for await (const file of walk(root, root)) {
      const path = relative(root, file).split(sep).join("/");
      const text = await readFile(file, "utf8").catch(() => "");
      const lines = text
        .split("\n")
        .filter((l) => l.toLowerCase().includes(needle))
        .slice(0, 3);
      if (lines.length || path.toLowerCase().includes(needle))
        hits.push({ path, lines: lines.map((l) => l.trim().slice(0, 200)) });
      if (hits.length >= limit) break;
    }
    return hits.length ? JSON.stringify(hits, null, 1) : `No notes match "${query}".`;
  },
  async list_notes({ folder = "" }) {
    const { root, full } = await locate(folder, { note: false });
    const entries = await readdir(full, { withFileTypes: true });
    const items = entries
      .filter((e) => !e.name.startsWith(".") && (e.isDirectory() || e.name.endsWith(".md")))
      .map((e) => (e.isDirectory() ? `${relative(root, join(full, e.name))}/` : relative(root, join(full, e.name))));
    return items.sort().join("\n") || "(empty folder)";
  },
  async read_note({ path }) {
    const { full } = await locate(path);
    const text = await readFile(full, "utf8");
    return text.length > MAX_READ ? `${text.slice(0, MAX_READ)}\n[truncated]` : text;
  },
  async create_note({ path, content }) {
    const { full, name } = await locate(path, { mustExist: false });
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, String(content), { flag: "wx" }).catch((err) => {
      throw err.code === "EEXIST" ? new Error(`${name} already exists; use append_note`) : err;
    });
    return `Created ${name}.`;
  },
  async append_note({ path, content }) {
    const { full, name } = await locate(path);
    const text = String(content);
    const current = await readFile(full, "utf8");
    await appendFile(full, current.endsWith("\n") || current === "" ? text : `\n${text}`);
    return `Appended to ${name}.`;
  },
};

async function answer(msg) {
  switch (msg.method) {
    case "initialize":
      return {
        protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "fermix-obsidian", version: "1.0.0" },
      };
    case "ping":
      return {};
    case "tools/list":
      return { tools };
    case "tools/call": {
      const handler = handlers[msg.params?.name];
      if (!handler) return { content: [{ type: "text", text: `unknown tool ${msg.params?.name}` }], isError: true };
      try {
        return { content: [{ type: "text", text: await handler(msg.params.arguments ?? {}) }] };
      } catch (err) {
        return { content: [{ type: "text", text: err.message }], isError: true };
      }
    }
    default:
      throw Object.assign(new Error(`method not found: ${msg.method}`), { code: -32601 });
  }
}

const send = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

async function handle(line) {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
  }
  if (msg.id === undefined) return; // notifications need no reply
  try {
    send({ jsonrpc: "2.0", id: msg.id, result: await answer(msg) });
  } catch (err) {
    send({ jsonrpc: "2.0", id: msg.id, error: { code: err.code ?? -32603, message: err.message } });
  }
}

// One request at a time, in order: a create followed by an append must not race.
let chain = Promise.resolve();
createInterface({ input: process.stdin }).on("line", (line) => {
  chain = chain.then(() => handle(line));
});
