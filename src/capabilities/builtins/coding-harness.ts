import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { claudeArgs, codexArgs } from "../../harness/argv.ts";
import type { HarnessService, StartRequest } from "../../harness/harness-service-contract.ts";
import { HARNESS_DEFAULTS, HarnessRefused, VENDOR_LABEL, type Vendor } from "../../harness/harness-types.ts";
import { type AnyTool, defineTool, type ToolContext } from "../tool.ts";
import { codingRunTools } from "./coding-runs.ts";

export type HarnessToolDeps = { service: () => Promise<HarnessService> };

const Str = v.pipe(v.string(), v.minLength(1, "must not be empty"));
const common = {
  prompt: v.pipe(v.string(), v.minLength(1, "say what the coding agent should do")),
  cwd: v.pipe(v.string(), v.minLength(1, "the repository folder the run works in")),
  model: v.optional(Str),
  add_dirs: v.optional(v.array(Str)),
  resume: v.optional(Str),
  output_schema: v.optional(v.record(v.string(), v.unknown())),
  timeout_minutes: v.optional(
    v.pipe(
      v.number(),
      v.gtValue(0, "above 0"),
      v.maxValue(HARNESS_DEFAULTS.timeoutCapMinutes, `at most ${HARNESS_DEFAULTS.timeoutCapMinutes} minutes`),
    ),
  ),
  progress: v.optional(v.picklist(["quiet", "milestones"])),
};

const CodexParams = v.object({
  ...common,
  effort: v.optional(v.picklist(["minimal", "low", "medium", "high", "xhigh"])),
  // danger-full-access is accepted here only to be refused with a sentence rather than a schema error.
  sandbox: v.optional(v.picklist(["read-only", "workspace-write", "danger-full-access"])),
  ephemeral: v.optional(v.boolean()),
  profile: v.optional(Str),
  images: v.optional(v.array(Str)),
});

const ClaudeParams = v.object({
  ...common,
  effort: v.optional(v.picklist(["low", "medium", "high", "xhigh", "max"])),
  permission_mode: v.optional(v.picklist(["default", "acceptEdits", "plan", "bypassPermissions"])),
  allowed_tools: v.optional(v.array(Str)),
  disallowed_tools: v.optional(v.array(Str)),
  append_system_prompt: v.optional(Str),
  max_turns: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  continue: v.optional(v.boolean()),
});

const DANGER =
  'sandbox "danger-full-access" is refused: fermix never lets a delegated coding run leave the Codex sandbox. Use "workspace-write" (edits inside the repo and add_dirs) or "read-only".';
const BYPASS =
  'permission_mode "bypassPermissions" is refused: fermix never lets a delegated coding run skip Claude Code\'s permission checks. Use "acceptEdits" (edits allowed) or "default".';

const RUN_HELP = `Background-only: the call returns at once with the run id (hr_…); the result is delivered back to this chat when the run ends (a CLI session sees it before its next ask; a scheduled job's run follows the job's delivery).
cwd and add_dirs must be folders inside the sandbox roots the caller may write (else cwd_denied). One run per workspace at a time (workspace_locked); at most [fermix_core.harness] max_active runs at once (max_active). timeout_minutes defaults to [fermix_core.harness] default_timeout_minutes (30), at most 240; a run that prints nothing for inactivity_minutes (10) is stopped. progress "milestones" (default) posts a few progress lines to the chat; "quiet" only the result.`;

/** A refusal or bad path as the model reads it: the sentence plus its tag. */
const refused = (tag: string, message: string) => ({ isError: true, content: `Refused (${tag}): ${message}` });

/**
 * The first argument given that a CLI could read as an option of its own (a leading "-"): refused, since a value
 * such as "--dangerously-bypass-approvals-and-sandbox" must never become a flag. `skip` names what is safe (Claude's
 * prompt, which follows "--").
 */
function flagLike(args: Record<string, unknown>, skip: readonly string[] = []): string | undefined {
  for (const [key, value] of Object.entries(args)) {
    if (skip.includes(key)) continue;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((x) => typeof x === "string" && x.trimStart().startsWith("-"))) return key;
  }
  return undefined;
}

async function checkDir(
  path: string,
  ctx: ToolContext,
): Promise<{ ok: true; path: string } | { ok: false; why: string }> {
  const verdict = await ctx.sandbox.checkPath(path, "write", ctx.caller);
  if (!verdict.ok) return { ok: false, why: `${path}: ${verdict.reason}` };
  try {
    if (!statSync(verdict.path).isDirectory()) return { ok: false, why: `${path} is not a folder` };
  } catch {
    return { ok: false, why: `${path} does not exist` };
  }
  return verdict;
}

type Common = v.InferOutput<v.ObjectSchema<typeof common, undefined>>;

/** The checks and start both run tools share; `build` turns the checked paths into the vendor's arguments. */
async function startRun(
  vendor: Vendor,
  args: Common,
  ctx: ToolContext,
  deps: HarnessToolDeps,
  build: (dirs: { cwd: string; addDirs: string[] }) => (runDir: string) => string[] | { refused: string },
) {
  const cwd = await checkDir(args.cwd, ctx);
  if (!cwd.ok) return refused("cwd_denied", `${cwd.why}. The run folder must be inside the sandbox roots.`);
  const addDirs: string[] = [];
  for (const dir of args.add_dirs ?? []) {
    const checked = await checkDir(dir, ctx);
    if (!checked.ok) return refused("cwd_denied", `${checked.why}. add_dirs must be inside the sandbox roots.`);
    addDirs.push(checked.path);
  }
  const argsFor = build({ cwd: cwd.path, addDirs });
  const request: StartRequest = {
    vendor,
    prompt: args.prompt,
    cwd: cwd.path,
    addDirs,
    args: (runDir) => {
      const out = argsFor(runDir);
      if (!Array.isArray(out)) throw new Error(out.refused);
      return out;
    },
    params: { ...args, cwd: cwd.path },
    progress: args.progress ?? "milestones",
    timeoutMinutes: args.timeout_minutes,
    origin: ctx.conversation,
    jobId: ctx.caller.jobId,
  };
  try {
    const service = await deps.service();
    const run = service.start(request);
    return `Started coding run ${run.id} (${VENDOR_LABEL[vendor]} in ${run.cwd}). It works in the background and I'll report back here when it finishes; get_coding_run ${run.id} shows its progress, cancel_coding_run ${run.id} stops it.`;
  } catch (err) {
    if (HarnessRefused.is(err)) return refused(err.data.tag, err.message);
    throw err;
  }
}

export function createHarnessTools(deps: HarnessToolDeps) {
  const codexRun = defineTool({
    name: "codex_run",
    description:
      "Delegate a repo coding task to the owner's Codex CLI (codex exec) in the background; returns a run id and reports the result back here.",
    parameters: CodexParams,
    policy: "exec",
    readOnly: false,
    deferrable: true,
    help: `${RUN_HELP}\nsandbox: read-only | workspace-write (danger-full-access is refused). resume continues a Codex thread (then sandbox, profile and add_dirs are refused). images are sandbox files passed with -i; output_schema is a JSON Schema for the final message.`,
    async execute(args, ctx) {
      if (args.sandbox === "danger-full-access") return refused("not_authorized", DANGER);
      const flag = flagLike(args);
      if (flag) return refused("not_authorized", `${flag} may not start with "-" (Codex would read it as an option).`);
      if (args.resume && (args.sandbox || args.profile || args.add_dirs?.length)) {
        return refused(
          "not_authorized",
          "resume continues an existing Codex thread: sandbox, profile and add_dirs cannot be given with it (the thread keeps its own).",
        );
      }
      const images: string[] = [];
      for (const image of args.images ?? []) {
        const verdict = await ctx.sandbox.checkPath(image, "read", ctx.caller);
        if (!verdict.ok) return refused("cwd_denied", `${image}: ${verdict.reason}`);
        images.push(verdict.path);
      }
      return startRun("codex", args, ctx, deps, ({ cwd, addDirs }) => (runDir) => {
        const outputSchema = args.output_schema ? join(runDir, "output-schema.json") : undefined;
        if (outputSchema) writeFileSync(outputSchema, JSON.stringify(args.output_schema), { mode: 0o600 });
        return codexArgs(
          {
            prompt: args.prompt,
            cwd,
            model: args.model,
            effort: args.effort,
            sandbox: args.sandbox as "read-only" | "workspace-write" | undefined,
            addDirs,
            ephemeral: args.ephemeral,
            profile: args.profile,
            images,
            resume: args.resume,
          },
          { lastMessage: join(runDir, "last-message.txt"), outputSchema },
        );
      });
    },
  });

  const claudeCodeRun = defineTool({
    name: "claude_code_run",
    description:
      "Delegate a repo coding task to the owner's Claude Code CLI (claude -p) in the background; returns a run id and reports the result back here.",
    parameters: ClaudeParams,
    policy: "exec",
    readOnly: false,
    deferrable: true,
    help: `${RUN_HELP}\npermission_mode: default | acceptEdits | plan (bypassPermissions is refused). Edits to .codex/ and .agents/ folders are always disallowed. resume takes a Claude session id; continue resumes the latest session in cwd.`,
    async execute(args, ctx) {
      if (args.permission_mode === "bypassPermissions") return refused("not_authorized", BYPASS);
      const flag = flagLike(args, ["prompt"]);
      if (flag) {
        return refused("not_authorized", `${flag} may not start with "-" (Claude Code would read it as an option).`);
      }
      if (args.continue && args.resume)
        return refused("not_authorized", "give resume (a session id) or continue, not both.");
      return startRun(
        "claude",
        args,
        ctx,
        deps,
        ({ addDirs }) =>
          () =>
            claudeArgs({
              prompt: args.prompt,
              model: args.model,
              effort: args.effort,
              permissionMode: args.permission_mode,
              allowedTools: args.allowed_tools,
              disallowedTools: args.disallowed_tools,
              appendSystemPrompt: args.append_system_prompt,
              addDirs,
              maxTurns: args.max_turns,
              jsonSchema: args.output_schema ? JSON.stringify(args.output_schema) : undefined,
              resume: args.resume,
              continue: args.continue,
            }),
      );
    },
  });

  return { codexRun, claudeCodeRun, history: codingRunTools(deps) };
}

/**
 * The harness tools of one offer, in catalog order: run tools first, then the run-history tools. A quiet vendor's
 * run tool comes as an unadvertised copy (the shared tool object stays as declared).
 */
export function harnessToolList(
  tools: ReturnType<typeof createHarnessTools>,
  offered: { history: boolean; vendors: readonly Vendor[]; quiet?: readonly Vendor[] },
): AnyTool[] {
  const run = { codex: tools.codexRun, claude: tools.claudeCodeRun } as const;
  const byVendor = (vendor: Vendor): AnyTool[] => {
    if (offered.vendors.includes(vendor)) return [run[vendor]];
    if (offered.quiet?.includes(vendor)) return [{ ...run[vendor], unadvertised: true }];
    return [];
  };
  return [...byVendor("codex"), ...byVendor("claude"), ...(offered.history ? tools.history : [])];
}
