import type { Caller } from "../capabilities/caller.ts";
import type { ChannelReply } from "../capabilities/channel-reply.ts";
import { type SplitSurface, splitSurfaceReusing } from "../capabilities/deferral/split.ts";
import { mayUse } from "../capabilities/policy.ts";
import type { Registry } from "../capabilities/registry-contract.ts";
import type { AnyTool, ToolContext, ToolServices } from "../capabilities/tool.ts";
import { defineError, FermixError } from "../error.ts";
import { newId } from "../ids.ts";
import { type TurnDocument, userMessage, withMediaPlaceholders } from "../media/image-parts.ts";
import { hasContent } from "../memory/messages.ts";
import type { ConversationKey, ConversationWindow, MessageStore } from "../memory/messages-contract.ts";
import { newSessionId, type Traces } from "../observability/traces.ts";
import { documentRoutes } from "../providers/documents.ts";
import type { RouterDeps } from "../providers/router.ts";
import type { Route, RouteChoice } from "../providers/routes.ts";
import type { JsonSchema, ToolSpec, Usage } from "../providers/types.ts";
import { visionRoutes } from "../providers/vision.ts";
import type { Budget, RunLimit } from "../usage/budget-contract.ts";
import { conversationScope, scopedRouter } from "../usage/meter.ts";
import { channelActionMarker } from "./channel-marker.ts";
import { conversationTokens, DEFAULT_THRESHOLD } from "./compaction.ts";
import { failureToError, TurnCancelled, TurnTimedOut } from "./failure-error.ts";
import type { OwnerProfile } from "./prompt.ts";
import type { PromptFiles } from "./prompt-files.ts";
import { buildSystemPromptReusing } from "./prompt-reuse.ts";
import { profileAddendum, type RunProfile } from "./run-profile.ts";
import { estimateTokens } from "./token-estimate.ts";
import { runToolLoop, type ToolExecution } from "./tool-loop.ts";
import { startBeforeFailover, tracedFromStart } from "./turn-start-trace.ts";

export const EmptyCompletion = defineError("empty_completion");
export const EMPTY_REPLY = "The model sent back an empty answer, so nothing was saved. Please try again.";
/** All of the model's output allowance went before any answer text (long reasoning): empty, but for a known reason. */
export const EMPTY_TRUNCATED_REPLY =
  "The model reached its output limit before writing any answer, so nothing was saved. Ask again, for a shorter answer or in smaller steps.";

export type TurnInput = {
  key: ConversationKey;
  text: string;
  /** Who is asking; a local CLI caller by default. */
  caller?: Caller;
  choice?: RouteChoice;
  signal?: AbortSignal;
  onText?: (delta: string) => void;
  /** The text streamed so far ended at a tool call (see LoopInput.onItemEnd): a chat's block boundary. */
  onItemEnd?: () => void;
  /** A part of the model's reasoning summary (see LoopInput.onReasoningSummary): a chat's `💭` line. */
  onReasoningSummary?: (text: string) => void;
  /** The turn's trace session id, when the caller traces alongside it (a chat's stream); a new `main-…` otherwise. */
  sessionId?: string;
  /** Messages for the owner that do not go through the model (approval prompts). */
  onNotice?: (text: string) => void;
  /** A scheduled job's run: its framing, routes, narrowed tools, and what the run record keeps. */
  job?: JobTurn;
  /** /ultra: wider subagent caps and an exhaustive-mode addendum for this turn only. */
  runProfile?: RunProfile;
  /** Pictures that came with a chat message, for a vision model. */
  images?: ReadonlyArray<{ mime: string; data: Uint8Array }>;
  /** Documents that came with the ask (`fermix ask --attach report.pdf`), for a model that reads them. */
  documents?: readonly TurnDocument[];
  /**
   * Narrows the caller's surface to these names, like a job's allowedTools (undefined: no narrowing; empty: no
   * tools at all, and a prompt that names none). `fermix ask --tools` / `--no-tools`.
   */
  allowedTools?: readonly string[];
  /** Appended to the system prompt after the persona, for this turn only, never stored (`fermix ask --system`). */
  instructions?: string;
  /** Each model call's tokens as its wire reported them (`fermix ask --usage`). */
  onUsage?: (usage: Usage) => void;
  /** The chat a channel turn answers: what send_attachment and react act on (absent: they are not offered). */
  channel?: ChannelReply;
  /** The stored chat messages this turn answers: settled with the turn's commit (memory/inbound.ts). */
  inboundIds?: readonly number[];
  /** `ask --schema`: the final answer must be JSON matching this schema (the wire's structured output). */
  schema?: JsonSchema;
  /** The caller made this conversation's key for this turn (a fresh session id): it has no history to read. */
  newConversation?: true;
};

/** How a scheduled run differs from a conversation turn (see jobs/job-runner.ts). */
export type JobTurn = {
  /** Appended to the system prompt: the cron guidance, the job's context, the date in its zone. */
  instructions: string;
  /** The routes resolved at run time: a pinned provider+model alone, else the cron routing or the chain. */
  routes: Route[];
  /** Narrows the caller's surface to these names (undefined: no narrowing; empty: no tools). */
  allowedTools?: readonly string[];
  /** The trace session id, `cron_<job>_<ts>`. */
  sessionId: string;
  /** The run record's id, for the usage ledger's rows. */
  runId?: string;
  /** Router settings for the run (no same-provider retry: the job has its own). */
  router?: Partial<RouterDeps>;
  onPrompt?: (system: string, user: string) => void;
  onUsage?: (usage: Usage) => void;
  onToolStart?: (name: string) => void;
  onToolExecution?: (execution: ToolExecution) => void;
  /** The job's own max_usd for this run (schedule_job), checked with the owner's budgets before each model call. */
  runLimit?: RunLimit;
};

export type TurnResult = {
  response: string;
  provider: string;
  model: string;
  turnId: string;
  /** The size of this turn's system prompt, for the compaction check that follows the reply. */
  systemTokens?: number;
  /**
   * The conversation as this turn committed it (its summary and messages, estimated as compaction does) and the
   * primary model's context window: the compaction check that follows needs no second read of the history.
   */
  context?: { conversationTokens: number; contextWindow: number };
  /** The answer stopped at the model's output limit: every surface says so (CLI note, `--json`, a channel marker). */
  truncated?: true;
};

/** What tools need from the running program, fetched per turn so a reloaded sandbox takes effect. */
export type ToolEnvironment = Pick<ToolContext, keyof ToolServices>;

export type TurnDeps = {
  store: MessageStore;
  /** The owner's prompt files as they are now (read per turn: they are the owner's to edit). */
  promptFiles?: () => Partial<PromptFiles>;
  /** `## Skills` for this caller's tools: names and descriptions only. */
  skillsIndex?: (surface: readonly AnyTool[]) => string | undefined;
  /** Tools beyond the registry's for this turn: the ready plugins' tools (a function: as they are now). */
  extraTools?: readonly AnyTool[] | (() => readonly AnyTool[]);
  /** [fermix_core.tools.tool_search] enabled: plugin schemas leave the request behind tool_search (default on). */
  deferTools?: boolean;
  /** What to tell the model about a tool name it cannot use (a disabled plugin's tool: how to enable it). */
  unknownToolHint?: (name: string) => string | undefined | Promise<string | undefined>;
  /** Share of the context window above which old tool results are digested inside one turn. */
  compactionThreshold?: number;
  routes: (choice: RouteChoice) => Route[];
  router: RouterDeps;
  registry: Registry;
  toolEnvironment: () => ToolEnvironment;
  /** llm_call, tool_exec, agent_event and error traces; absent, nothing is traced. */
  traces?: Traces;
  now: () => number;
  agentName: string;
  timezone: string;
  /** [fermix_core.personalization] user_name / communication_style: in an operator's prompt only. */
  owner?: OwnerProfile;
  onToolExecution?: (execution: ToolExecution & { conversation: ConversationKey }) => void;
  /** The owner's budgets ([fermix_core.budget]), asked before every model call; absent, nothing is limited. */
  budget?: Pick<Budget, "guard">;
  /**
   * Done in the commit's own transaction, before the turn's messages (a one-shot ask then writes memory.db once for
   * both, issue 31); one that throws leaves the conversation as it was, and nothing of its own writes.
   */
  beforeCommit?: () => void;
};

/**
 * One turn: history → prompt → model/tool loop (with failover on the first call) → commit. Everything
 * the turn added is committed together, and only when the final answer has content, so a failed,
 * cancelled or empty turn leaves the conversation exactly as it was.
 */
export async function runTurn(input: TurnInput, deps: TurnDeps): Promise<TurnResult> {
  const chosen = input.job?.routes ?? deps.routes(input.choice ?? {});
  // Pictures go only to a model that sees them: a text-only primary fails loudly, a text-only fallback is skipped.
  const seeing = input.images?.length ? visionRoutes(chosen) : chosen;
  // A PDF likewise goes only to a model that reads documents (src/providers/documents.ts), refused before any request.
  const routes = input.documents?.length ? documentRoutes(seeing) : seeing;
  const names = input.allowedTools ?? input.job?.allowedTools;
  const allowed = names ? new Set(names) : undefined;
  const caller: Caller = input.caller ?? { trust: "operator", local: true, attended: true };
  const { summary, rows } = input.newConversation ? NO_HISTORY : deps.store.window(input.key);
  const history = rows.map((r) => r.message);
  const user = userMessage(input.text, input.images, input.documents);
  // Plugin tools join the built-ins under the same trust rules; their schemas are deferred when they are many.
  // They can change while the turn runs (a plugin's server comes up, or a one-shot ask starts one and learns
  // its real tool list): the next model request then carries the new surface and prompt.
  const extras = typeof deps.extraTools === "function" ? deps.extraTools : () => deps.extraTools as readonly AnyTool[];
  let shape:
    | { extras: readonly AnyTool[] | undefined; split: SplitSurface; system: string; specs: ToolSpec[] }
    | undefined;
  const current = () => {
    const offered = extras();
    if (shape && shape.extras === offered) return shape;
    // Loops rather than filter: array builtins run cold in a one-shot process (see splitSurface).
    const all: AnyTool[] = [];
    for (const t of deps.registry.surface(caller, input.channel)) if (!allowed || allowed.has(t.name)) all.push(t);
    for (const t of offered ?? []) if (mayUse(t, caller) && (!allowed || allowed.has(t.name))) all.push(t);
    const split = splitSurfaceReusing(all, {
      enabled: deps.deferTools !== false,
      isDeferrable: deferrable,
      weigh: deps.registry.specSize,
    });
    let system = buildSystemPromptReusing({
      agentName: deps.agentName,
      now: new Date(deps.now()),
      timezone: deps.timezone,
      cwd: caller.cwd,
      tools: split.sent,
      deferred: split.deferred,
      files: filesFor(caller, deps.promptFiles?.()),
      // With no tool to reach them by, skills and plugin sections would name what the model cannot use.
      skillsIndex: split.callable.length ? deps.skillsIndex?.(split.callable) : undefined,
      summary,
      // The owner's name is the owner's data: a guest talking to the bot is not told it.
      owner: caller.trust === "operator" ? deps.owner : undefined,
    });
    if (input.job) system = `${system}\n\n${input.job.instructions}`;
    if (input.instructions) system = `${system}\n\n${input.instructions}`;
    const addendum = profileAddendum(input.runProfile);
    if (addendum) system = `${system}\n\n${addendum}`;
    shape = { extras: offered, split, system, specs: specsOf(split.sent, deps.registry) };
    return shape;
  };
  const first = current();
  const signal = input.signal ?? new AbortController().signal;
  input.job?.onPrompt?.(first.system, input.text);
  const started = deps.now();
  const trace =
    deps.traces &&
    tracedFromStart(deps.traces, input.job?.sessionId ?? input.sessionId ?? newSessionId("main"), started, {
      channel: input.key.channel,
      trust: caller.trust,
      tools_sent: first.split.sent.length,
      tools_deferred: first.split.deferred.length,
    });
  const toolContext: ToolContext = {
    ...deps.toolEnvironment(),
    caller,
    conversation: input.key,
    signal,
    now: deps.now,
    notify: (text) => input.onNotice?.(text),
    surface: () => current().split.callable,
    get deferred() {
      return current().split.deferred;
    },
    unknownToolHint: deps.unknownToolHint,
    trace,
    runProfile: input.runProfile,
    channel: input.channel,
  };

  const finish = (status: "ok" | "error", extra: Record<string, unknown> = {}) =>
    trace?.traces.write("agent_event", {
      session_id: trace.sessionId,
      event: "turn_end",
      status,
      duration_ms: deps.now() - started,
      ...extra,
    });
  const loopAndCommit = async () => {
    const result = await runToolLoop({
      routes,
      system: () => current().system,
      messages: [...history, user],
      tools: () => current().specs,
      registry: deps.registry,
      toolContext,
      // Every call of the turn is counted in the usage ledger under its conversation (and its job's run).
      router: scopedRouter(
        startBeforeFailover(input.job?.router ? { ...deps.router, ...input.job.router } : deps.router, trace),
        conversationScope(input.job ? "job" : "main", input.key, { jobId: caller.jobId, runId: input.job?.runId }),
      ),
      signal,
      digestAboveTokens: Math.floor(
        (deps.compactionThreshold ?? DEFAULT_THRESHOLD) * routes[0]!.descriptor.contextWindow,
      ),
      onText: input.onText,
      onItemEnd: input.onItemEnd,
      onReasoningSummary: input.onReasoningSummary,
      schema: input.schema,
      // Refused before the first request; a turn that crossed the line mid-way stops before its next call.
      beforeModelCall:
        deps.budget &&
        ((iteration) => deps.budget?.guard({ trust: caller.trust, midTurn: iteration > 1, run: input.job?.runLimit })),
      onToolStart: input.job?.onToolStart,
      onUsage: (usage) => {
        input.job?.onUsage?.(usage);
        input.onUsage?.(usage);
      },
      onToolExecution: (e) => {
        input.job?.onToolExecution?.(e);
        deps.onToolExecution?.({ ...e, conversation: input.key });
      },
    });
    if (signal.aborted) throw abortError(signal);
    if (!result.ok) throw failureToError(result.failure, deps.now(), { afterOutput: result.afterOutput });
    // A channel turn may answer with a reaction or a file alone; its marker is then the committed answer.
    const marker = result.text.trim() ? undefined : channelActionMarker(result.added);
    if (!result.text.trim() && !marker) {
      const why = result.truncated ? EMPTY_TRUNCATED_REPLY : EMPTY_REPLY;
      throw EmptyCompletion(why, { provider: result.provider, model: result.model });
    }

    const turnId = newId("turn", 6);
    // History keeps a placeholder for each picture: the bytes went to the model in this turn only.
    const stored = [withMediaPlaceholders(user), ...result.added, ...(marker ? [marker] : [])];
    deps.store.commitTurn(input.key, stored, {
      ...(deps.beforeCommit ? { alongside: deps.beforeCommit } : {}),
      turnId,
      provider: result.provider,
      model: result.model,
      ...(input.inboundIds?.length ? { answers: { ids: input.inboundIds, as: "answered" as const } } : {}),
    });
    return { ...result, turnId, stored };
  };
  let done: Awaited<ReturnType<typeof loopAndCommit>>;
  try {
    done = await loopAndCommit();
  } catch (err) {
    const error = err instanceof FermixError ? err : undefined;
    trace?.traces.write("error", {
      session_id: trace.sessionId,
      code: error?.code ?? "internal",
      message: err instanceof Error ? err.message : String(err),
    });
    finish("error", { code: error?.code ?? "internal" });
    throw err;
  }
  finish("ok", {
    provider: done.provider,
    model: done.model,
    messages_added: done.added.length,
    ...(done.truncated ? { truncated: true } : {}),
  });
  return {
    response: done.text,
    provider: done.provider,
    model: done.model,
    turnId: done.turnId,
    systemTokens: estimateTokens(current().system),
    context: {
      // What the store keeps (and its window replays): messages with content only.
      conversationTokens: conversationTokens(summary, [...history, ...done.stored.filter(hasContent)]),
      contextWindow: chosen[0]!.descriptor.contextWindow,
    },
    ...(done.truncated ? { truncated: true as const } : {}),
  };
}

const NO_HISTORY: ConversationWindow = { rows: [] };

/** Plugin and MCP tools, and the situational built-ins: one function, so a reused split can be recognised. */
const deferrable = (t: AnyTool) => t.policy === "plugin" || t.deferrable === true;

// The specs of the last turn's sent tools: a reused split sends the very same list (see splitSurfaceReusing).
let lastSpecs: { sent: readonly AnyTool[]; spec: Registry["spec"]; specs: ToolSpec[] } | undefined;

function specsOf(sent: readonly AnyTool[], registry: Registry): ToolSpec[] {
  if (lastSpecs?.sent === sent && lastSpecs.spec === registry.spec) return lastSpecs.specs;
  const specs = sent.map((t) => registry.spec(t));
  lastSpecs = { sent, spec: registry.spec, specs };
  return specs;
}

function abortError(signal: AbortSignal): FermixError {
  const reason = signal.reason;
  if (reason instanceof FermixError) return reason;
  if (reason instanceof DOMException && reason.name === "TimeoutError") {
    return TurnTimedOut("no answer within the time limit (--timeout); nothing was saved");
  }
  return TurnCancelled("the request was cancelled; nothing was saved");
}

/**
 * USER.md and MEMORY.md are what the owner told the agent about themselves (the memory review keeps them): the
 * owner's data, which a guest's turn is not given, like the owner's name. The persona and guidance stay.
 */
function filesFor(caller: Caller, files: Partial<PromptFiles> | undefined): Partial<PromptFiles> | undefined {
  if (!files || caller.trust === "operator") return files;
  const { user: _user, memory: _memory, ...shared } = files;
  return shared;
}
