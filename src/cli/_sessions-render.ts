import type { SessionHit, SessionMessage, SessionSummary } from "../sessions/session-store.ts";

/** How much of a tool call's arguments or result one summary line shows. */
const TOOL_LINE_CHARS = 100;

/** One line a session: id, last activity, channel, stored messages, title (tab-separated, like `fermix jobs`). */
export function renderSessionList(sessions: SessionSummary[]): string {
  if (!sessions.length) return "no sessions\n";
  return sessions.map((s) => `${s.id}\t${second(s.updated_at)}\t${s.channel}\t${s.messages}\t${s.title}\n`).join("");
}

export function renderSearch(hits: SessionHit[]): string {
  if (!hits.length) return "no session matches\n";
  return hits.map((s) => `${s.id}\t${second(s.updated_at)}\t${s.channel}\t${s.title}\t${s.snippet}\n`).join("");
}

type Section = { who: "You" | "fermix"; at: string; lines: string[] };

/**
 * The exchange as sections: each prompt is one "You" section, and everything fermix did until the next prompt one
 * "fermix" section — its words, and each tool call as one line with what came of it.
 */
function sections(messages: SessionMessage[]): Section[] {
  const results = new Map(messages.flatMap((m) => (m.role === "tool" && m.tool_call_id ? [[m.tool_call_id, m]] : [])));
  const out: Section[] = [];
  for (const m of messages) {
    if (m.role === "tool") continue;
    const who = m.role === "user" ? "You" : "fermix";
    let section = out.at(-1);
    if (!section || section.who !== who || who === "You") {
      section = { who, at: m.created_at, lines: [] };
      out.push(section);
    }
    for (const call of m.tool_calls ?? []) section.lines.push(toolLine(call, results.get(call.id)));
    if (m.text.trim()) section.lines.push(m.text.trim());
  }
  return out;
}

function toolLine(call: NonNullable<SessionMessage["tool_calls"]>[number], result: SessionMessage | undefined): string {
  const args = clip(JSON.stringify(call.arguments));
  const outcome = !result
    ? "no result"
    : result.is_error
      ? `failed: ${clip(result.text)}`
      : `${result.text.length} characters`;
  return `[tool] ${call.name} ${args} → ${outcome}`;
}

/** `fermix sessions show`: a header, then the exchange under role headings. */
export function renderSession(session: SessionSummary, messages: SessionMessage[]): string {
  const head = `${session.title}\n${session.id} · ${session.channel} · ${session.messages} messages · ${span(session)}\n`;
  const body = sections(messages).map((s) => `\n${s.who} · ${minute(s.at)}\n${s.lines.join("\n")}\n`);
  return head + body.join("");
}

/** `fermix sessions export --format md`: a `# title`, then `## You` / `## fermix` sections. */
export function renderMarkdown(session: SessionSummary, messages: SessionMessage[]): string {
  const lines = [`# ${session.title}`, "", `Session \`${session.id}\` (${session.channel}), ${span(session)} UTC.`];
  for (const s of sections(messages)) {
    lines.push("", `## ${s.who}`);
    // Each line its own paragraph: consecutive quoted tool lines would otherwise run together.
    for (const line of s.lines)
      lines.push("", line.startsWith("[tool] ") ? `> ${line.replace("[tool] ", "tool: ")}` : line);
  }
  return `${lines.join("\n")}\n`;
}

export function renderExportJson(session: SessionSummary, messages: SessionMessage[]): string {
  return `${JSON.stringify({ session, messages }, null, 2)}\n`;
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > TOOL_LINE_CHARS ? `${line.slice(0, TOOL_LINE_CHARS - 1)}…` : line;
}

function second(iso: string): string {
  return iso.replace(/\.\d{3}Z$/, "Z");
}

/** When a session ran: `2026-03-01 07:00`, `2026-03-01 07:00–07:45`, or `2026-03-01 07:00 – 2026-03-02 09:10`. */
function span(session: SessionSummary): string {
  const from = minute(session.created_at);
  const to = minute(session.updated_at);
  if (from === to) return from;
  return from.slice(0, 10) === to.slice(0, 10) ? `${from}–${to.slice(11)}` : `${from} – ${to}`;
}

function minute(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}
