/**
 * The system prompt for a turn. Date only, never a clock time: a time would change every call and
 * defeat the providers' prompt caches.
 */
export function buildSystemPrompt(opts: { agentName: string; now: Date; timezone: string; cwd?: string }): string {
  const date = opts.now.toISOString().slice(0, 10);
  const lines = [
    `You are ${opts.agentName}, a personal AI assistant running on the user's own machine.`,
    "Answer directly and concisely. When the input includes piped text, treat it as material to work on.",
    `Today's date is ${date} (UTC; the user's timezone is ${opts.timezone}).`,
  ];
  if (opts.cwd) lines.push(`The user is working in ${opts.cwd}.`);
  return lines.join("\n");
}
