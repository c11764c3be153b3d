import { existsSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { isFermixError } from "../../error.ts";
import type { Skill } from "../../skills/catalog.ts";
import { SKILL_NAME } from "../../skills/parse.ts";
import { reloadReport, renderLoadError, renderReload, renderSkillLine } from "../../skills/report.ts";
import { builtOnce, lazySchema } from "../../valibot-lazy.ts";
import { mayUse } from "../policy.ts";
import { type AnyTool, defineTool, type SkillDelegation, type ToolContext, type ToolResult } from "../tool.ts";

/** skill_run inside skill_run inside … stops here: a skill that calls itself must not loop for ever. */
export const MAX_SKILL_DEPTH = 4;

const NO_CATALOG: ToolResult = { isError: true, content: "Skills are not available in this context." };
const Name = builtOnce(() => v.pipe(v.string(), v.minLength(1)));

export const skillList = defineTool({
  name: "skill_list",
  deferrable: true,
  description: "List the skills (instruction packages) you can view or run, with when to use each.",
  policy: "workspace_read",
  readOnly: true,
  parameters: lazySchema(() => v.object({})),
  async execute(_args, ctx) {
    if (!ctx.skills) return NO_CATALOG;
    const { skills, errors } = await ctx.skills.load();
    const lines = skills.length ? skills.map(renderSkillLine) : ["No skills are installed."];
    if (errors.length) lines.push("", "Skills that failed to load:", ...errors.map((e) => `- ${renderLoadError(e)}`));
    return lines.join("\n");
  },
});

export const skillView = defineTool({
  name: "skill_view",
  description: "Read a skill's instructions, or one of its reference files by name.",
  policy: "workspace_read",
  readOnly: true,
  parameters: lazySchema(() =>
    v.object({
      name: Name(),
      file: v.optional(v.pipe(v.string(), v.description("a reference file the skill lists, e.g. plugins"))),
    }),
  ),
  help: "Without file: the skill's instructions and the names of its reference files. With file: that file. Only files the skill lists can be read.",
  async execute(args, ctx) {
    if (!ctx.skills) return NO_CATALOG;
    return guarded(async () => {
      const view = await ctx.skills!.view(args.name, args.file);
      if (view.file) return view.text;
      const refs = view.skill.references;
      const footer = refs.length
        ? `\n\n---\nReference files (skill_view with file): ${refs.map((f) => f.replace(/\.md$/, "")).join(", ")}`
        : "";
      return `${view.text}${footer}`;
    });
  },
});

export const skillRun = defineTool({
  name: "skill_run",
  description: "Hand a self-contained task to a skill, which runs it as a sub-agent and returns the result.",
  policy: "workspace_read",
  readOnly: false,
  timeoutMs: 30 * 60_000,
  parameters: lazySchema(() =>
    v.object({
      name: Name(),
      input: v.pipe(
        v.string(),
        v.description("the task, with every fact it needs: the sub-agent cannot see this chat"),
      ),
    }),
  ),
  help: `The skill runs with its allowed_tools (or your tools when it names none), never more than you have; plugin skills get only what a guest may use. Skills may run skills, ${MAX_SKILL_DEPTH} levels deep at most.`,
  async execute(args, ctx) {
    if (!ctx.skills) return NO_CATALOG;
    const depth = ctx.skillDepth ?? 0;
    if (depth >= MAX_SKILL_DEPTH) {
      return {
        isError: true,
        content: `skill_run refused: skills are already nested ${depth} deep (the limit is ${MAX_SKILL_DEPTH}). Do this step yourself.`,
      };
    }
    const delegate = ctx.delegate ?? viaDelegation(ctx);
    if (!delegate) return { isError: true, content: "Sub-agents are not available here, so skills cannot be run." };
    return guarded(async () => {
      const { skill } = await ctx.skills!.view(args.name);
      const result = await delegate({
        instructions: instructionsFor(skill),
        input: args.input,
        allowedTools: allowedToolsFor(skill, ctx.surface(), ctx),
        depth: depth + 1,
      });
      return result.ok ? result.text : { isError: true, content: `skill ${skill.name} failed: ${result.text}` };
    });
  },
});

export const skillCreate = defineTool({
  name: "skill_create",
  deferrable: true,
  description: "Save a new skill (or replace one of the owner's own) in $FERMIX_HOME/skills.",
  policy: "workspace_write",
  readOnly: false,
  parameters: lazySchema(() =>
    v.object({
      name: v.pipe(v.string(), v.regex(SKILL_NAME, "lowercase letters, digits, - or _, starting with a letter")),
      description: v.pipe(v.string(), v.minLength(1), v.maxLength(300)),
      body: v.pipe(v.string(), v.minLength(1), v.description("the instructions, in Markdown")),
      allowed_tools: v.optional(v.array(v.string())),
      overwrite: v.optional(v.boolean()),
    }),
  ),
  help: "Writes SKILL.md only (no reference files). A bundled or plugin skill's name is refused; replacing an existing home skill needs overwrite: true. The skill is loaded at once.",
  async execute(args, ctx) {
    const catalog = ctx.skills;
    if (!catalog) return NO_CATALOG;
    return guarded(async () => {
      const existing = (await catalog.load()).skills.find((s) => s.name === args.name);
      if (existing && (existing.source !== "home" || existing.overrides)) {
        const what = existing.overrides ? "a bundled skill (overridden by hand)" : `a ${existing.source} skill`;
        return { isError: true, content: `"${args.name}" is ${what}; choose another name.` };
      }
      // A folder that failed to load is still the owner's file: replacing it is also an overwrite.
      const onDisk = existsSync(join(catalog.homeSkillsDir, args.name, "SKILL.md"));
      if ((existing || onDisk) && !args.overwrite) {
        return { isError: true, content: `skill "${args.name}" exists already; pass overwrite: true to replace it.` };
      }
      // The writer loads with the first skill written, not with the tool list (issue 31: boot RSS, ask's import).
      const { writeHomeSkill } = await import("../../skills/write.ts");
      const { file } = writeHomeSkill(catalog.homeSkillsDir, {
        name: args.name,
        description: args.description,
        allowedTools: args.allowed_tools,
        body: args.body,
      });
      const reload = await catalog.reload();
      const problem = reload.errors.find((e) => e.file === file);
      if (problem) return { isError: true, content: `wrote ${file} but it did not load: ${problem.reason}` };
      return `${existing || onDisk ? "Replaced" : "Created"} skill ${args.name} (${file}); it is available now.`;
    });
  },
});

export const skillReload = defineTool({
  name: "skill_reload",
  deferrable: true,
  description: "Re-scan the skill folders after a SKILL.md was added or edited; reports what changed.",
  policy: "workspace_write",
  readOnly: false,
  parameters: lazySchema(() => v.object({})),
  async execute(_args, ctx) {
    if (!ctx.skills) return NO_CATALOG;
    return renderReload(reloadReport(await ctx.skills.reload()));
  },
});

export const SKILL_TOOLS: readonly AnyTool[] = [skillList, skillView, skillRun, skillCreate, skillReload];

function instructionsFor(skill: Skill): string {
  const refs = skill.references.length
    ? `\n\nReference files, if you need them: ${skill.references.join(", ")} (skill_view name "${skill.name}" with file).`
    : "";
  return `You are running the skill "${skill.name}": ${skill.description}\n\n${skill.body}${refs}`;
}

/**
 * A skill gets its allowed_tools, or the caller's tools when it names none, and never more than the
 * caller has. A plugin skill's trust is guest whoever runs it, so it also gets only what a guest may use.
 */
export function allowedToolsFor(skill: Skill, surface: readonly AnyTool[], ctx: Pick<ToolContext, "caller">): string[] {
  const guest = { ...ctx.caller, trust: "guest" as const };
  return surface
    .filter((t) => skill.trust === "operator" || mayUse(t, guest))
    .filter((t) => !skill.allowedTools || skill.allowedTools.includes(t.name))
    .map((t) => t.name);
}

/** The subagent runner wired as ctx.delegation also runs skills; the depth rides on the parent context it copies. */
function viaDelegation(
  ctx: ToolContext,
): ((task: SkillDelegation) => Promise<{ ok: boolean; text: string }>) | undefined {
  const delegation = ctx.delegation;
  if (!delegation) return undefined;
  return async (task) => {
    const parent: ToolContext = { ...ctx, skillDepth: task.depth };
    const [result] = await delegation.run(
      [{ task: task.input, instructions: task.instructions, allowedTools: task.allowedTools }],
      parent,
      {},
    );
    return result ?? { ok: false, text: "the sub-agent returned nothing" };
  };
}

/** Catalog errors (unknown skill or file, invalid SKILL.md) are answers the model can act on, not crashes. */
async function guarded(work: () => Promise<ToolResult | string>): Promise<ToolResult | string> {
  try {
    return await work();
  } catch (err) {
    if (isFermixError(err)) return { isError: true, content: err.message };
    throw err;
  }
}
