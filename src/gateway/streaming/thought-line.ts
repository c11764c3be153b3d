/** A `💭` line stays one short line on a phone: a longer heading is cut at a word. */
export const THOUGHT_MAX_CHARS = 100;

/**
 * The `💭` line for one part of a reasoning summary: its heading, which OpenAI writes as the part's bold first line
 * (`**Planning the search**`), else the first line itself, shortened. Undefined for a part with no words.
 *
 * @example thoughtLine("**Checking the calendar**\n\nThe owner asked…") === "💭 Checking the calendar"
 */
export function thoughtLine(summary: string): string | undefined {
  const first = summary.trim().split("\n", 1)[0] ?? "";
  // Stray bold markers go too: the line is sent as Markdown, and a lone `**` would open bold on the platform.
  const bold = /^\*\*(.+?)\*\*/.exec(first.trim())?.[1] ?? first;
  const heading = bold.replaceAll("**", "").replace(/\s+/g, " ").trim();
  return heading ? `💭 ${shorten(heading)}` : undefined;
}

function shorten(text: string): string {
  if (text.length <= THOUGHT_MAX_CHARS) return text;
  const cut = text.slice(0, THOUGHT_MAX_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > THOUGHT_MAX_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
