// A stand-in MCP server for supervision tests, driven by its env (the plugin's config values):
// MODE=silent never answers; MODE=normal answers and offers env, cwd, echo and crash tools.
// PID_LOG gets this process's pid (and a helper's, with HELPER=true) so tests can check they are gone.
// LIST_CHANGED=true advertises tools.listChanged and offers add_tool, which adds a tool to the list and
// sends notifications/tools/list_changed.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const env = process.env;
const note = (pid) => env.PID_LOG && appendFileSync(env.PID_LOG, `${pid}\n`);
note(process.pid);
if (env.HELPER === "true") {
  // A helper that outlives nothing on its own: only a process-group kill ends it.
  const helper = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  note(helper.pid);
}

const tools = [
  { name: "env", description: "Report the environment.", inputSchema: { type: "object", properties: {} } },
  { name: "cwd", description: "Report the working directory.", inputSchema: { type: "object", properties: {} } },
  {
    name: "echo",
    description: "Echo a message.",
    inputSchema: { type: "object", properties: { message: { type: "string" } } },
  },
  { name: "crash", description: "Exit at once.", inputSchema: { type: "object", properties: {} } },
];

const call = { env: () => JSON.stringify(env), cwd: () => process.cwd(), echo: (a) => `echo: ${a.message}` };

const listChanged = env.LIST_CHANGED === "true";
if (listChanged) {
  tools.push({
    name: "add_tool",
    description: "Add a tool named `name` to the list.",
    inputSchema: { type: "object", properties: { name: { type: "string" } } },
  });
  call.add_tool = (a) => {
    tools.push({ name: a.name, description: "Added at run time.", inputSchema: { type: "object", properties: {} } });
    call[a.name] = () => `${a.name} ran`;
    return `added ${a.name}`;
  };
}

const send = (msg) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...msg })}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
  if (env.MODE === "silent") return;
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  if (msg.method === "initialize") {
    send({
      id: msg.id,
      result: {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: listChanged ? { listChanged: true } : {} },
        serverInfo: { name: "fake", version: "1.0.0" },
      },
    });
  } else if (msg.method === "tools/list") {
    send({ id: msg.id, result: { tools } });
  } else if (msg.method === "tools/call" && msg.params.name === "crash") {
    process.exit(3);
  } else if (msg.method === "tools/call") {
    send({
      id: msg.id,
      result: { content: [{ type: "text", text: call[msg.params.name](msg.params.arguments ?? {}) }] },
    });
    // After the answer, as a server whose tools depend on what a call did would.
    if (msg.params.name === "add_tool") send({ method: "notifications/tools/list_changed" });
  } else {
    send({ id: msg.id, error: { code: -32601, message: "method not found" } });
  }
});
