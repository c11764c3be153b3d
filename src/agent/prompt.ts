import type { AnyTool } from "../capabilities/tool.ts";

/**
 * The system prompt for a turn, in a stable order so providers can cache its prefix. Date only, never
 * a clock time: a time would change every call and defeat the caches.
 */
export function buildSystemPrompt(opts: {
  agentName: string;
  now: Date;
  timezone: string;
  cwd?: string;
  tools: readonly AnyTool[];
}): string {
  const date = opts.now.toISOString().slice(0, 10);
  const sections = [
    [
      `You are ${opts.agentName}, a personal AI assistant running on the user's own machine.`,
      "Answer directly and concisely. When the input includes piped text, treat it as material to work on.",
      "Use your tools to look things up and act instead of guessing; report what they returned.",
    ].join("\n"),
    capabilityCatalog(opts.tools),
    [
      `Today's date is ${date} (UTC; the user's timezone is ${opts.timezone}).`,
      opts.cwd ? `The user is working in ${opts.cwd}.` : "",
    ]
      .filter(Boolean)
      .join("\n"),
  ];
  return sections.join("\n\n");
}

/** What this caller may use, and nothing else: a guest's prompt never names a tool it cannot call. */
function capabilityCatalog(tools: readonly AnyTool[]): string {
  if (!tools.length) return "## Built-in Capability Catalog\nNo tools are available in this conversation.";
  const lines = tools.map((t) => `- ${t.name}: ${t.description}`);
  return `## Built-in Capability Catalog\n${lines.join("\n")}\nUse tool_help for one tool's full schema and failure modes.`;
}
