/**
 * The front matter of a SKILL.md: the lines between a first `---` line and the next one. Only a small,
 * explicit subset of YAML is read — enough for what a skill declares, small enough to have no surprises:
 *
 * ```
 * ---
 * name: release-notes
 * description: Use when the user asks for release notes from a git range.
 * allowed_tools: [git_read, file_read]
 * ---
 * ```
 *
 * - `key: value` on one line; the value is a plain string (surrounding spaces trimmed, kept as written
 *   otherwise, `#` included) or a double-quoted string with JSON escapes (`"a \"quoted\" word"`).
 * - `key: [a, b]` or `key: []`: a flat list of plain or double-quoted strings.
 * - blank lines and lines starting with `#` are skipped.
 * Anything else (indentation, multi-line values, a key given twice) is an error naming the line, so a
 * file is never half-understood.
 */
export type FrontMatter = Record<string, string | string[]>;

export type FrontMatterSplit =
  | { ok: true; fields: FrontMatter; body: string }
  | { ok: false; field?: string; reason: string };

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*))?$/;

export function splitFrontMatter(text: string): FrontMatterSplit {
  const { lines, body } = cutAtFrontMatter(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (lines[0]?.trim() !== "---") {
    return { ok: false, reason: "it must start with a `---` line, then the front matter, then another `---` line" };
  }
  if (body === undefined) return { ok: false, reason: "the front matter has no closing `---` line" };
  const end = lines.length - 1;

  const fields: FrontMatter = {};
  for (let i = 1; i < end; i++) {
    const line = lines[i]!;
    const lineNo = i + 1;
    if (!line.trim() || line.trimStart().startsWith("#")) continue;
    const match = KEY.exec(line);
    if (!match) {
      return { ok: false, reason: `line ${lineNo}: expected \`key: value\`, got ${JSON.stringify(line.trim())}` };
    }
    const key = match[1]!;
    if (key in fields) return { ok: false, field: key, reason: `line ${lineNo}: ${key} is given twice` };
    const value = parseValue((match[2] ?? "").trim());
    if (!value.ok) return { ok: false, field: key, reason: `line ${lineNo}: ${value.reason}` };
    fields[key] = value.value;
  }
  return { ok: true, fields, body };
}

/**
 * The lines (split at \n or \r\n) up to and including the front matter's closing `---` line, and the text after
 * that line with its line ends made \n; `body` is undefined when no closing line comes. Only the head is cut into
 * lines: a body runs to tens of kilobytes (the bundled skill's is 24 KB), and every in-process ask reads it, where
 * each string allocated is fresh memory the process faults in (issue 31).
 */
function cutAtFrontMatter(text: string): { lines: string[]; body?: string } {
  const lines: string[] = [];
  let at = 0;
  for (;;) {
    const newline = text.indexOf("\n", at);
    const stop = newline < 0 ? text.length : newline;
    const line = text.slice(at, newline > at && text[newline - 1] === "\r" ? newline - 1 : stop);
    lines.push(line);
    if (lines.length > 1 && line.trim() === "---") {
      const rest = newline < 0 ? "" : text.slice(newline + 1);
      return { lines, body: rest.includes("\r\n") ? rest.replaceAll("\r\n", "\n") : rest };
    }
    if (newline < 0 || (lines.length === 1 && line.trim() !== "---")) return { lines };
    at = newline + 1;
  }
}

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

function parseValue(raw: string): Parsed<string | string[]> {
  if (raw.startsWith("[")) {
    if (!raw.endsWith("]")) return { ok: false, reason: "a list must open and close on the same line: [a, b]" };
    const inner = raw.slice(1, -1).trim();
    if (!inner) return { ok: true, value: [] };
    const items: string[] = [];
    for (const part of splitList(inner)) {
      const item = parseScalar(part.trim());
      if (!item.ok) return item;
      if (!item.value) return { ok: false, reason: "a list item is empty" };
      items.push(item.value);
    }
    return { ok: true, value: items };
  }
  return parseScalar(raw);
}

function parseScalar(raw: string): Parsed<string> {
  if (raw.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === "string") return { ok: true, value };
    } catch {
      // Reported below with the one rule the reader needs.
    }
    return { ok: false, reason: `a quoted value must be one "…" string with \\" for a quote inside: ${raw}` };
  }
  if (raw.startsWith("'") || raw.startsWith("{") || raw === "|" || raw === ">") {
    return { ok: false, reason: `unsupported value ${JSON.stringify(raw)}: use plain text or "double quotes"` };
  }
  return { ok: true, value: raw };
}

/** Splits on commas outside double quotes. */
function splitList(inner: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch === "\\" && quoted) {
      current += ch + (inner[++i] ?? "");
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === "," && !quoted) {
      parts.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts;
}

/** Writes fields back in the subset above; values that would read differently as plain text are quoted. */
export function renderFrontMatter(fields: FrontMatter): string {
  const lines = Object.entries(fields).map(([key, value]) =>
    Array.isArray(value) ? `${key}: [${value.map(renderScalar).join(", ")}]` : `${key}: ${renderScalar(value)}`,
  );
  return `---\n${lines.join("\n")}\n---\n`;
}

function renderScalar(value: string): string {
  const plain = value === value.trim() && value !== "" && !/^["'[{|>#]/.test(value) && !/[,\]\n\r]/.test(value);
  return plain ? value : JSON.stringify(value);
}
