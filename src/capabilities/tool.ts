import type * as v from "valibot";
import type { RunProfile } from "../agent/run-profile.ts";
import type { BrowserSession } from "../browser/browser-session.ts";
import type { Config } from "../config/schema.ts";
import type { SecretRef } from "../config/sections/secret-ref.ts";
import type { JobService } from "../jobs/job-service-contract.ts";
import type { MemoryStore } from "../memory/memories-contract.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import type { GuardedFetch } from "../net/types.ts";
import type { Log } from "../observability/log.ts";
import type { TraceContext } from "../observability/traces.ts";
import type { ImagePart } from "../providers/types.ts";
import type { Sandbox } from "../sandbox/types.ts";
import type { SkillCatalog } from "../skills/catalog.ts";
import type { Caller, PolicyClass } from "./caller.ts";
import type { ChannelReply } from "./channel-reply.ts";
import type { DirectoryApprovals } from "./directory-approvals.ts";

/** Who asked, in which conversation, and what this one call may reach of it: set by the turn for each call. */
export type ToolCall = {
  caller: Caller;
  conversation: ConversationKey;
  signal: AbortSignal;
  now: () => number;
  /** Shows the owner something directly (not through the model): an approval prompt, a warning. */
  notify(text: string): void;
  /** Where this piece of work's traces go, under its session id (a subagent gets its own, linked to this). */
  trace?: TraceContext;
  /** Set in an /ultra turn: the subagents tool fans out wider (agent/run-profile.ts). */
  runProfile?: RunProfile;
  /** The chat a channel turn answers (absent on the CLI, in jobs and subagents): send_attachment, react. */
  channel?: ChannelReply;
  /** Runs a skill as a sub-agent for skill_run; the child's context must carry `skillDepth: task.depth`. */
  delegate?: (task: SkillDelegation) => Promise<{ ok: boolean; text: string }>;
  /** How many skill_run calls deep this context is (0 or absent at the top); skill_run refuses past 4. */
  skillDepth?: number;
};

/** The tools as this caller sees them: tool_help, tool_describe and tool_call read these. */
export type ToolSurface = {
  /** The tools this caller may use, for tool_help. */
  surface(): readonly AnyTool[];
  /** Tools whose schemas stay out of the provider request, reached through tool_search / tool_call. */
  deferred?: readonly AnyTool[];
  /** What to say about a tool name outside the surface, when there is more to say than "no such tool". */
  unknownToolHint?: (name: string) => string | undefined | Promise<string | undefined>;
};

/** The program's services a tool may use, the same for every call of a turn (the app hands them to each turn). */
export type ToolServices = {
  sandbox: Sandbox;
  net: GuardedFetch;
  log: Log;
  config: Config;
  /** config.toml's path, for the tools that change it (model_routing_config); absent where nothing may write it. */
  configFile?: string;
  /** The browser tool's Chromium session, launched on its first use (absent where no browser is wired). */
  browser?: () => BrowserSession;
  /** Resolves a configured secret (plaintext, "@keyring", "$ENV", a source table); throws when unavailable. */
  resolveSecret(ref: SecretRef, slot: string): string;
  approvals: DirectoryApprovals;
  /** Starts subagents (absent where delegation is not wired, e.g. in some tests). */
  delegation?: Delegation;
  /** Durable facts and recall (absent where memory is not wired; the memory tools then say so). */
  memory?: MemoryStore;
  /** Scheduled jobs, loaded on first use (absent where jobs are not wired; the job tools then say so). */
  jobs?: () => Promise<JobService>;
  /** The skills this program knows (absent where skills are not wired; the skill tools then say so). */
  skills?: SkillCatalog;
};

/** Everything a tool may use, passed in (no ambient state): the call, the surface and the services. */
export type ToolContext = ToolCall & ToolSurface & ToolServices;

/** A skill handed to a sub-agent: its body as instructions, the caller's task as input. */
export type SkillDelegation = {
  instructions: string;
  input: string;
  /** The tools the sub-agent may use, already narrowed to the skill's allowed_tools and trust. */
  allowedTools?: string[];
  depth: number;
};

/** Runs tasks as temporary agents whose tools are never wider than the parent context's. */
export type Delegation = {
  run(
    tasks: ReadonlyArray<{ task: string; context?: string; instructions?: string; allowedTools?: readonly string[] }>,
    parent: ToolContext,
    /** `route`: the subagents tool's one-shot model/provider, for these tasks only (refused, with the fix, when invalid). */
    opts: { concurrency?: number; route?: { provider?: string; model?: string } },
  ): Promise<Array<{ ok: boolean; text: string }>>;
};

export type ToolResult = {
  content: string;
  isError?: boolean;
  /** Pictures for the model to look at (a browser screenshot): shown after the results, this turn only. */
  images?: ImagePart[];
  /** The call was the whole answer (a lone reaction): the turn ends without another model call. */
  endsTurn?: boolean;
  /**
   * How many of the latest tool-image batches stay in this turn's messages (default 1; older ones become a
   * placeholder): computer_use keeps max_retained_screenshots so the model can compare before and after.
   */
  retainImages?: number;
  /** Fields for this call's tool_exec trace line (body-free: never typed text unless content capture is on). */
  trace?: Record<string, unknown>;
};

export type Tool<S extends v.GenericSchema = v.GenericSchema> = {
  name: string;
  /** One line for the catalog and the provider's tool list. */
  description: string;
  parameters: S;
  /**
   * The JSON Schema sent to the provider when it is not derived from `parameters` (plugin and MCP tools
   * declare theirs in JSON Schema; their rail checks the arguments itself).
   */
  jsonSchema?: Record<string, unknown>;
  policy: PolicyClass;
  /**
   * An on-request built-in (the rarer job tools, skill upkeep, image, browser, routing…): with tool-schema
   * deferral on, its schema waits behind tool_describe like a plugin tool's, so the request carries only the
   * tools a turn commonly uses (issue 27: memory, skills, git, scheduling and subagents stay direct, one round
   * trip). The prompt's capability catalog still names it, with how to reach it.
   */
  deferrable?: boolean;
  /** Reads run in parallel when the model asks for several at once; anything else runs in order. */
  readOnly: boolean;
  /** Only for an attended operator turn (never guests, jobs or unattended runs). */
  attendedOperatorOnly?: boolean;
  /**
   * Callable by its exact name only: never on the provider wire, in the prompt's catalog or in tool_search
   * (the non-default vendor's coding-run tool, so the model reaches for the owner's choice but a call of the
   * other still runs).
   */
  unadvertised?: boolean;
  /**
   * A tool that acts in the chat a channel turn answers: the variant of it this channel supports, or undefined
   * where it cannot. Such a tool is offered only in an attended channel turn (never on the CLI, in jobs or to
   * subagents); the registry's surface asks this for each turn.
   */
  forChannel?: (channel: ChannelReply) => AnyTool | undefined;
  /** Longer notes for tool_help: limits and failure modes. */
  help?: string;
  timeoutMs?: number;
  execute(args: v.InferOutput<S>, ctx: ToolContext): Promise<ToolResult | string>;
};

/** A tool of any argument shape, as a registry holds them. */
export type AnyTool = Tool<any>;

/** Declares a built-in, skill, plugin or MCP tool. `parameters` is a valibot object schema. */
export function defineTool<S extends v.GenericSchema>(tool: Tool<S>): Tool<S> {
  return tool;
}
