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
      `Today's date is ${promptDate(input.now)} (UTC; the owner's timezone is ${input.timezone}).`,
      input.cwd ? `The user is working in ${input.cwd}.` : "",
    ]
      .filter(Boolean)
      .join("\n"),
    input.summary ? `## Earlier in this conversation (summary)\n${input.summary}` : undefined,
  ];
  return sections.filter((s): s is string => Boolean(s?.trim())).join("\n\n");
}

/** The prompt's only clock input: the UTC date, never a time. */
function promptDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/*
 * A daemon's turns mostly build the very prompt the turn before built: the same files, tools, skills and date. The
 * last prompt is reused when every input buildSystemPrompt reads is the same (strings by value, tool lists as the
 * same objects in order, the date as the date), so an edit of any of them reaches the very next turn.
 */
let last: { key: unknown[]; prompt: string } | undefined;

/** buildSystemPrompt, or the previous call's prompt when nothing it reads has changed. */
export function systemPrompt(input: PromptInput): string {
  const key = PROMPT_KEY.map((read) => read(input));
  if (last && key.every((part, i) => samePart(part, last!.key[i]))) return last.prompt;
  const prompt = buildSystemPrompt(input);
  last = { key, prompt };
  return prompt;
}

// Every field of PromptInput, each as what buildSystemPrompt reads of it: a new field does not compile until it is
// named here, so it cannot be left out of the comparison.
const FIELDS: { [K in keyof PromptInput]-?: (input: PromptInput) => unknown } = {
  agentName: (i) => i.agentName,
  now: (i) => promptDate(i.now),
  timezone: (i) => i.timezone,
  cwd: (i) => i.cwd,
  tools: (i) => i.tools,
  deferred: (i) => i.deferred,
  files: (i) => entries(i.files),
  skillsIndex: (i) => i.skillsIndex,
  summary: (i) => i.summary,
  owner: (i) => entries(i.owner),
};
const PROMPT_KEY = Object.values(FIELDS);

/** An object's keys and values, flat: every field of the files and the owner's profile, whatever they come to hold. */
function entries(value: object | undefined): unknown[] | undefined {
  return value && Object.entries(value).flat();
}

/** Equal values, or arrays of the very same elements in order (tool lists, the files, the owner's profile). */
function samePart(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  return a.every((x, i) => x === b[i]);
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
