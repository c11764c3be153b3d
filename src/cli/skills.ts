import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { createDaemonClient, NOT_RUNNING } from "../protocol/client.ts";
import type { SkillReloadReport } from "../protocol/schemas.ts";
import { createSkillCatalog, type Skill, type SkillCatalog } from "../skills/catalog.ts";
import { renderLoadError, renderReload, sourceLabel } from "../skills/report.ts";
import { defineCommand } from "./command.ts";
import { EXIT } from "./exit.ts";
import { writeOut } from "./output.ts";
import { answerQuery } from "./query.ts";

export default defineCommand({
  meta: {
    name: "skills",
    description: "List the skills the agent can use, print one, or reload them",
    details: "Skills come bundled with this binary and from $FERMIX_HOME/skills.",
  },
  default: "list",
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "List every skill with its source and description; load errors after" },
      args: { json: { type: "boolean", description: "print the typed JSON envelope" } },
      run({ args }) {
        const catalog = localCatalog();
        return answerQuery({
          json: args.json === true,
          query: () => catalog.load(),
          render: ({ skills, errors }) => renderList(skills, errors.map(renderLoadError)),
          toJson: ({ skills, errors }) => ({ skills: skills.map(skillJson), errors }),
        });
      },
    }),
    view: defineCommand({
      meta: {
        name: "view",
        description: "Print a skill's SKILL.md, or one of its reference files",
        examples: ["fermix skills view self-knowledge", "fermix skills view self-knowledge sandbox"],
      },
      args: {
        name: { type: "positional", required: true, description: "the skill (fermix skills list shows them)" },
        file: { type: "positional", required: false, description: "one of its reference files" },
      },
      async run({ args }) {
        const view = await localCatalog().view(args.name, args.file);
        await writeOut(`${view.text.trimEnd()}\n`);
        return EXIT.ok;
      },
    }),
    reload: defineCommand({
      meta: {
        name: "reload",
        description: "Ask a running daemon to reload its skills; without one, show what loads now",
      },
      async run() {
        await writeOut(`${await reload()}\n`);
        return EXIT.ok;
      },
    }),
  },
});

function localCatalog(): SkillCatalog {
  return createSkillCatalog({ homeSkillsDir: fermixPaths(resolveHome(processEnv())).skills });
}

function renderList(skills: Skill[], errors: string[]): string {
  const width = Math.max(0, ...skills.map((s) => s.name.length));
  const sourceWidth = Math.max(0, ...skills.map((s) => sourceLabel(s).length));
  const lines = skills.map((s) => `${s.name.padEnd(width)}  ${sourceLabel(s).padEnd(sourceWidth)}  ${s.description}`);
  if (!skills.length) lines.push("no skills");
  for (const error of errors) lines.push(`error: ${error}`);
  return `${lines.join("\n")}\n`;
}

function skillJson(skill: Skill) {
  return {
    name: skill.name,
    source: skill.source,
    description: skill.description,
    overrides: skill.overrides ?? null,
    allowed_tools: skill.allowedTools ?? null,
    file: skill.file,
    references: skill.references,
  };
}

/**
 * A running daemon holds its skills in memory, so it is the one to reload. Without one there is nothing
 * to refresh: every in-process `fermix ask` reads the skill folders afresh; what they hold now is shown.
 */
async function reload(): Promise<string> {
  const paths = fermixPaths(resolveHome(processEnv()));
  const remote = await reloadDaemon(paths.socket);
  if (remote.kind === "reloaded") return renderReload(remote.report);
  const { skills, errors } = await localCatalog().load();
  const note =
    remote.kind === "not_running"
      ? "No daemon is running, so nothing needed reloading; each `fermix ask` reads the skills afresh."
      : "The running daemon does not support reloading skills; restart it to pick up changes.";
  return `${note}\n${renderList(skills, errors.map(renderLoadError)).trimEnd()}`;
}

type RemoteReload = { kind: "reloaded"; report: SkillReloadReport } | { kind: "not_running" } | { kind: "unsupported" };

async function reloadDaemon(socket: string): Promise<RemoteReload> {
  try {
    return { kind: "reloaded", report: await createDaemonClient(socket).reloadSkills() };
  } catch (err) {
    if (err instanceof FermixError && err.code === NOT_RUNNING) return { kind: "not_running" };
    // A daemon older than the reload route answers "no route".
    if (err instanceof FermixError && err.code === "not_found") return { kind: "unsupported" };
    throw err;
  }
}
