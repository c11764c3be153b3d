import { parse } from "smol-toml";

/**
 * Just enough of TOML's surface syntax to edit a file in place: where tables and key/value statements
 * start and end (strings of all four kinds, arrays and inline tables spanning lines, comments), and
 * element-level edits of an array of strings that keep its layout. It never decides what a value means;
 * the caller re-parses the result with the real parser (smol-toml) before using it.
 */
export type Statement = {
  key: string;
  start: number;
  lineEnd: number;
  valueStart: number;
  valueEnd: number;
  value: string;
};
export type Element = { start: number; end: number; value: string };
export type ArrayValue = { open: number; close: number; elements: Element[] };

/** Headers and key/value statements, found by a scanner that knows TOML's strings, arrays and comments. */
export function outline(text: string) {
  const tables: { name: string; headerEnd: number; body: Statement[] }[] = [];
  const topKeys: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === " " || ch === "\t" || ch === "\r" || ch === "\n") i += 1;
    else if (ch === "#") i = lineEnd(text, i);
    else if (ch === "[") {
      const end = lineEnd(text, i);
      const header = text.slice(i, end).replace(/#.*$/, "").trim();
      const array = header.startsWith("[[");
      const name = header
        .replace(/^\[\[?|\]\]?$/g, "")
        .split(".")
        .map(unquoteKey)
        .join(".");
      tables.push({ name: array ? `[[${name}]]` : name, headerEnd: end, body: [] });
      i = end;
    } else {
      const eq = text.indexOf("=", i);
      const key = text.slice(i, eq).split(".").map(unquoteKey).join(".");
      let valueStart = eq + 1;
      while (text[valueStart] === " " || text[valueStart] === "\t") valueStart += 1;
      const valueEnd = skipValue(text, valueStart);
      const end = lineEnd(text, valueEnd);
      const statement = { key, start: i, lineEnd: end, valueStart, valueEnd, value: text.slice(valueStart, valueEnd) };
      if (tables.length) tables.at(-1)!.body.push(statement);
      else topKeys.push(key);
      i = end;
    }
  }
  return { tables, topKeys };
}

function unquoteKey(part: string): string {
  const trimmed = part.trim();
  return /^(".*"|'.*')$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end === -1 ? text.length : end;
}

/** The index just past the value starting at `i`: a string of any kind, an array or inline table, or a bare scalar. */
function skipValue(text: string, i: number): number {
  for (const fence of ['"""', "'''"]) {
    if (text.startsWith(fence, i)) {
      let end = i + 3;
      for (;;) {
        end = text.indexOf(fence, end);
        if (end === -1) return text.length;
        if (fence === '"""' && isEscaped(text, end)) end += 1;
        else break;
      }
      while (text[end + 3] === fence[0]) end += 1; // up to two quotes may end the content itself
      return end + 3;
    }
  }
  const ch = text[i];
  if (ch === '"' || ch === "'") {
    let end = i + 1;
    while (end < text.length && !(text[end] === ch && (ch === "'" || !isEscaped(text, end)))) end += 1;
    return end + 1;
  }
  if (ch === "[" || ch === "{") {
    let depth = 0;
    let j = i;
    while (j < text.length) {
      const c = text[j]!;
      if (c === '"' || c === "'") j = skipValue(text, j);
      else if (c === "#") j = lineEnd(text, j);
      else {
        if (c === "[" || c === "{") depth += 1;
        if (c === "]" || c === "}") depth -= 1;
        j += 1;
        if (depth === 0) return j;
      }
    }
    return text.length;
  }
  let end = i;
  while (end < text.length && !/[\s#,\]}]/.test(text[end]!)) end += 1;
  return end;
}

function isEscaped(text: string, at: number): boolean {
  let slashes = 0;
  for (let k = at - 1; k >= 0 && text[k] === "\\"; k--) slashes += 1;
  return slashes % 2 === 1;
}

/** The elements of the array whose `[` is at `open`, each with its text span and decoded value. */
export function readArray(text: string, open: number): ArrayValue {
  const close = skipValue(text, open) - 1;
  const elements: Element[] = [];
  let j = open + 1;
  while (j < close) {
    const c = text[j]!;
    if (c === "#") j = lineEnd(text, j);
    else if (/[\s,]/.test(c)) j += 1;
    else {
      const end = skipValue(text, j);
      const raw = text.slice(j, end);
      const value = (parse(`v = ${raw}`) as { v: unknown }).v;
      elements.push({ start: j, end, value: typeof value === "string" ? value : raw });
      j = end;
    }
  }
  return { open, close, elements };
}

export function insertElement(text: string, array: ArrayValue, literal: string, nl: string): string {
  const last = array.elements.at(-1);
  if (!last) {
    const inner = text.slice(array.open + 1, array.close);
    if (!inner.includes("\n")) return splice(text, array.open, array.close + 1, `[${literal}]`);
    const lineStart = text.lastIndexOf("\n", array.close) + 1;
    const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
    return splice(text, lineStart, lineStart, `${indent}  ${literal},${nl}`);
  }
  let after = last.end;
  while (text[after] === " " || text[after] === "\t") after += 1;
  const trailingComma = text[after] === ",";
  const eol = lineEnd(text, last.end);
  const multiLine = text.slice(array.open, array.elements[0]!.start).includes("\n") && array.close > eol;
  if (!multiLine) {
    return trailingComma
      ? splice(text, after + 1, after + 1, ` ${literal},`)
      : splice(text, last.end, last.end, `, ${literal}`);
  }
  // One element per line: a new line under the last one, in its indentation and with its comma style.
  const lineStart = text.lastIndexOf("\n", last.start) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const eolNoCr = text[eol - 1] === "\r" ? eol - 1 : eol;
  const added = splice(text, eolNoCr, eolNoCr, `${nl}${indent}${literal}${trailingComma ? "," : ""}`);
  return trailingComma ? added : splice(added, last.end, last.end, ",");
}

export function removeElement(text: string, element: Element): string {
  const lineStart = text.lastIndexOf("\n", element.start - 1) + 1;
  const eol = lineEnd(text, element.end);
  const aloneOnLine =
    /^[ \t]*$/.test(text.slice(lineStart, element.start)) &&
    /^[ \t]*,?[ \t]*(#.*)?\r?$/.test(text.slice(element.end, eol));
  if (aloneOnLine) return splice(text, lineStart, Math.min(eol + 1, text.length), "");
  let after = element.end;
  while (text[after] === " " || text[after] === "\t") after += 1;
  if (text[after] === ",") {
    let next = after + 1;
    while (text[next] === " " || text[next] === "\t") next += 1;
    return splice(text, element.start, next, "");
  }
  let before = element.start - 1;
  while (before >= 0 && /\s/.test(text[before]!)) before -= 1;
  if (text[before] === ",") return splice(text, before, element.end, "");
  return splice(text, element.start, element.end, "");
}

export function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

/** A TOML basic string; JSON's escapes are valid TOML, and DEL is the one control JSON leaves raw. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replaceAll("\u007f", "\\u007f");
}

/** Removes a key/value statement with its whole line (a trailing comment on that line goes with it). */
export function removeStatement(text: string, statement: Statement): string {
  const lineStart = text.lastIndexOf("\n", statement.start - 1) + 1;
  return splice(text, lineStart, Math.min(statement.lineEnd + 1, text.length), "");
}

/** One `[table]` of a document and the edits a caller makes to it; everything outside the edited span stays as written. */
export type TableDoc = {
  text: string;
  nl: string;
  statement(key: string): Statement | undefined;
  /** Adds `line` at the start or end of the table's body, writing the `[table]` header at the end when missing. */
  addKey(line: string, where: "start" | "end"): string;
  /** Replaces the value of `key`, or adds `key = literal` when absent. */
  setValue(key: string, literal: string, where: "start" | "end"): string;
  /**
   * A statement outside the table's own body that also defines it: dotted keys (`plugins.enabled = …` under
   * [fermix_core]) or an inline table. A text edit next to it could only make the file invalid, so callers refuse.
   */
  definedElsewhere: string | undefined;
};

export function tableDoc(text: string, name: string): TableDoc {
  const nl = text.includes("\r\n") ? "\r\n" : "\n";
  const { tables, topKeys } = outline(text);
  const table = tables.find((t) => t.name === name);
  const overlaps = (path: string) => path === name || path.startsWith(`${name}.`) || name.startsWith(`${path}.`);
  const elsewhere = [
    ...topKeys,
    ...tables
      .filter((t) => t.name !== name && !t.name.startsWith(`${name}.`))
      .flatMap((t) => t.body.map((s) => `${t.name}.${s.key}`)),
  ].find(overlaps);
  const statement = (key: string) => table?.body.find((s) => s.key === key);
  const addKey = (line: string, where: "start" | "end") => {
    if (!table) {
      const gap = text === "" ? "" : text.endsWith("\n") ? nl : nl + nl;
      return `${text}${gap}[${name}]${nl}${line}${nl}`;
    }
    const after = where === "end" && table.body.length ? table.body.at(-1)!.lineEnd : table.headerEnd;
    const lead = after >= text.length && !text.endsWith("\n") ? nl : "";
    const at = Math.min(after + 1, text.length);
    return splice(text, at, at, `${lead}${line}${nl}`);
  };
  return {
    text,
    nl,
    statement,
    addKey,
    setValue(key, literal, where) {
      const current = statement(key);
      if (current) return splice(text, current.valueStart, current.valueEnd, literal);
      return addKey(`${key} = ${literal}`, where);
    },
    definedElsewhere: elsewhere,
  };
}
