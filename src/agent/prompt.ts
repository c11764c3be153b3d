import type { AnyTool } from "../capabilities/tool.ts";
import type { PromptFiles } from "./prompt-files.ts";

export type PromptInput = {
  agentName: string;
  now: Date;
  timezone: string;
  cwd?: string;
  tools: readonly AnyTool[];
  /** Tools whose schemas were left off the provider request; the built-ins among them are still named here. */
  deferred?: readonly AnyTool[];
  /** The owner's prompt files; absent (or empty) sections are left out. */
  files?: Partial<PromptFiles>;
  /** `## Skills`: names and descriptions only. */
  skillsIndex?: string;
  /** A compacted summary of this conversation's earlier turns. */
  summary?: string;
  /** [fermix_core.personalization] user_name / communication_style: the owner's, so left out of a guest's prompt. */
  owner?: OwnerProfile;
};

export type OwnerProfile = { userName?: string; communicationStyle?: string };

/**
 * The runtime prompt, assembled in a fixed order so providers can cache its prefix: identity, soul,
 * guidance, the owner's profiles, the capability catalog, the skills index — then what changes
 * (today's date, the working directory, a conversation summary). Date only, never a clock time.
 */
export function buildSystemPrompt(input: PromptInput): string {
  const files = input.files ?? {};
  const sections = [
    files.identity || `You are ${input.agentName}, a personal AI assistant running on the user's own machine.`,
    files.soul,
    files.guidance || "Use your tools to look things up and act instead of guessing; report what they returned.",
    files.user,
    ownerProfile(input.owner),
    files.memory,
    capabilityCatalog(input.tools, input.deferred ?? []),
    input.skillsIndex,
    [
      `Today's date is ${input.now.toISOString().slice(0, 10)} (UTC; the owner's timezone is ${input.timezone}).`,
      input.cwd ? `The user is working in ${input.cwd}.` : "",
    ]
      .filter(Boolean)
      .join("\n"),
    input.summary ? `## Earlier in this conversation (summary)\n${input.summary}` : undefined,
  ];
  return sections.filter((s): s is string => Boolean(s?.trim())).join("\n\n");
}

/**
 * What setup asked the owner, next to USER.md (what the agent learned about them). Config, not a clock, so the
 * cached prefix stays the same from turn to turn.
 */
function ownerProfile(owner: OwnerProfile | undefined): string | undefined {
  const name = owner?.userName?.trim();
  const style = owner?.communicationStyle?.trim();
  if (!name && !style) return undefined;
  return [
    "## The owner, as set up",
    name ? `- Name: ${name}. Address them by it where it fits.` : "",
    style ? `- How they want you to communicate: ${style}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

/**
 * What this caller may use, and nothing else: a guest's prompt never names a tool it cannot call. The tools on
 * the wire are named only (their schemas carry the descriptions; saying them twice cost ~2 KB a request);
 * deferred built-ins are described, with the one way to reach them (plugin tools have their own `## Plugins`).
 */
function capabilityCatalog(tools: readonly AnyTool[], deferred: readonly AnyTool[]): string {
  if (!tools.length) return "## Built-in Capability Catalog\nNo tools are available in this conversation.";
  const direct = `In your tool list, call directly: ${tools.map((t) => t.name).join(", ")}.`;
  const help = tools.some((t) => t.name === "tool_help")
    ? "\nUse tool_help for one tool's full schema and failure modes."
    : "";
  const builtinsOnRequest = deferred.filter((t) => t.policy !== "plugin");
  const onRequest = builtinsOnRequest.length
    ? [
        "",
        "### On request",
        'Not in your tool list, to keep it short: run one with tool_call (name and arguments); tool_describe gives its arguments, tool_call(name: "tool_help") its limits.',
        ...builtinsOnRequest.map((t) => `- ${t.name}: ${t.description}`),
      ].join("\n")
    : "";
  return `## Built-in Capability Catalog\n${direct}${help}${onRequest}`;
}
