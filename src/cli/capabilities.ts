import { BUILTIN_TOOLS } from "../capabilities/builtins/registry.ts";
import { WEB_TOOLS } from "../capabilities/builtins/web-tools.ts";
import { createRegistry } from "../capabilities/registry.ts";
import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { createSkillCatalog } from "../skills/catalog.ts";
import { defineCommand } from "./command.ts";
import { UsageError } from "./exit.ts";
import { answerQuery } from "./query.ts";

export const KINDS = ["builtin", "skill", "mcp", "plugin", "command"] as const;
type Kind = (typeof KINDS)[number];

type Row = {
  name: string;
  kind: Kind;
  description: string;
  policy: string;
  read_only: boolean;
  /** Only for a tool whose availability depends on this machine (computer_use): off, ready, or why not. */
  state?: string;
};

export default defineCommand({
  meta: {
    name: "capabilities",
    description: "List the tools the agent can use",
    details: "Every tool the agent can use as the owner: built-ins now, skills, MCP and plugins as they arrive.",
  },
  args: {
    kind: { type: "string", valueHint: "K", description: `only this kind (${KINDS.join(", ")})` },
    json: { type: "boolean", description: "print the typed JSON envelope" },
  },
  run({ args }) {
    const kind = args.kind as string | undefined;
    if (kind !== undefined && !KINDS.includes(kind as Kind)) {
      throw UsageError(`capabilities: --kind must be one of ${KINDS.join(", ")}`);
    }
    return answerQuery({
      json: args.json === true,
      query: async () => (await listCapabilities()).filter((row) => !kind || row.kind === kind),
      render: renderRows,
      toJson: (rows) => ({ capabilities: rows }),
    });
  },
});

async function listCapabilities(): Promise<Row[]> {
  const registry = createRegistry([...BUILTIN_TOOLS, ...WEB_TOOLS]);
  const operator = { trust: "operator" as const, local: true, attended: true };
  const tools: Row[] = registry
    .surface(operator)
    // computer_use has a row of its own below, with its state on this machine.
    .filter((tool) => tool.name !== "computer_use")
    .map((tool) => ({
      name: tool.name,
      kind: "builtin",
      description: tool.description,
      policy: tool.policy,
      read_only: tool.readOnly,
    }));
  // Skills are instructions rather than tools, reached through skill_view and skill_run; listed for completeness.
  const catalog = createSkillCatalog({ homeSkillsDir: fermixPaths(resolveHome(processEnv())).skills });
  const skills: Row[] = (await catalog.load()).skills.map((skill) => ({
    name: skill.name,
    kind: "skill",
    description: skill.description,
    policy: "skill",
    read_only: true,
  }));
  // The owner's [mcp.servers] tools, as their last discovery listed them (nothing is started for this).
  const { mcpCapabilityRows } = await import("../mcp/outbound/capability-rows.ts");
  const { loadConfig } = await import("../config/load.ts");
  const paths = fermixPaths(resolveHome(processEnv()));
  const mcp: Row[] = await loadConfig(paths.config).then(
    (config) => mcpCapabilityRows(paths.home, config),
    () => [],
  );
  // The owner's [sandbox.commands] profiles, each a cmd_<name> tool (a config that does not load lists none).
  const { commandProfileRows } = await import("./capabilities-commands.ts");
  const commands: Row[] = await loadConfig(paths.config).then(commandProfileRows, () => []);
  // The coding harness's tools: only once the owner approved it, a run tool only when its CLI is on PATH.
  const { harnessCapabilityRows } = await import("../harness/capability-rows.ts");
  const harness: Row[] = await loadConfig(paths.config).then(
    (config) => harnessCapabilityRows(config, processEnv().PATH),
    () => [],
  );
  // Computer use, with its state on this machine (a config that does not load lists it as off).
  const { computerUseRows } = await import("./capabilities-computer-use.ts");
  const desktop: Row[] = await computerUseRows(await loadConfig(paths.config).catch(() => ({})), processEnv());
  return [...tools, ...desktop, ...harness, ...skills, ...mcp, ...commands];
}

function renderRows(rows: Row[]): string {
  const count = (k: Kind) => rows.filter((r) => r.kind === k).length;
  const head = `capabilities: ${rows.length} (builtin ${count("builtin")}, skill ${count("skill")}, mcp ${count("mcp")}, command ${count("command")})`;
  const line = (r: Row) => `- ${r.name} [${r.kind}] ${r.description}${r.state ? ` — ${r.state}` : ""}`;
  return `${[head, ...rows.map(line)].join("\n")}\n`;
}
