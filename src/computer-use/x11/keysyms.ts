import { UnknownKey } from "./x11-errors.ts";

/** The `x11` package's keysymdef.h table: `XK_Return: { code: 0xff0d, description }`. */
export type KeysymTable = Record<string, { code: number; description: string | null } | number>;

/** The names models and xdotool users write for keys whose X keysym is spelt otherwise. */
const ALIASES: Record<string, string> = {
  ctrl: "Control_L",
  control: "Control_L",
  shift: "Shift_L",
  alt: "Alt_L",
  super: "Super_L",
  win: "Super_L",
  meta: "Meta_L",
  cmd: "Super_L",
  enter: "Return",
  return: "Return",
  esc: "Escape",
  escape: "Escape",
  backspace: "BackSpace",
  del: "Delete",
  delete: "Delete",
  tab: "Tab",
  space: "space",
  pageup: "Page_Up",
  pgup: "Page_Up",
  pagedown: "Page_Down",
  pgdn: "Page_Down",
  up: "Up",
  down: "Down",
  left: "Left",
  right: "Right",
  home: "Home",
  end: "End",
  insert: "Insert",
  plus: "plus",
  minus: "minus",
};

const RETURN = 0xff0d;
const TAB = 0xff09;

/** Keysym names to codes, exact and case-folded, built once per table. */
export type KeysymNames = { exact: Map<string, number>; folded: Map<string, number>; byChar: Map<string, number> };

export function indexKeysyms(table: KeysymTable): KeysymNames {
  const exact = new Map<string, number>();
  const folded = new Map<string, number>();
  const byChar = new Map<string, number>();
  for (const [key, value] of Object.entries(table)) {
    if (!key.startsWith("XK_") || typeof value !== "object") continue;
    const name = key.slice(3);
    exact.set(name, value.code);
    if (!folded.has(name.toLowerCase())) folded.set(name.toLowerCase(), value.code);
    // keysymdef.h describes a legacy keysym with the character it stands for: "(€) EURO SIGN".
    const char = /^\((.)\)/u.exec(value.description ?? "")?.[1];
    if (char && !byChar.has(char)) byChar.set(char, value.code);
  }
  return { exact, folded, byChar };
}

/**
 * One key of an xdotool-style combination ("Return", "ctrl", "F5", "a", "L") → its keysym. Exact names first (so
 * "L" is the capital, as in xdotool), then the aliases above, then a case-insensitive match ("return", "page_up").
 */
export function keysymForName(name: string, names: KeysymNames): number {
  if (name.length === 0) throw UnknownKey('an empty key name in the combination (write e.g. "ctrl+l")', { key: name });
  const exact = names.exact.get(name);
  if (exact !== undefined) return exact;
  const alias = ALIASES[name.toLowerCase()];
  if (alias) return names.exact.get(alias)!;
  const folded = names.folded.get(name.toLowerCase());
  if (folded !== undefined) return folded;
  if ([...name].length === 1) return keysymForChar(name, names);
  throw UnknownKey(
    `"${name}" is no key name: use X keysym names joined by "+", e.g. Return, Tab, Escape, BackSpace, Delete, ` +
      "Up, Page_Down, Home, F1–F12, space, a letter, and ctrl, shift, alt or super as modifiers (ctrl+shift+t)",
    { key: name },
  );
}

/** The keysym a typed character produces: Latin-1 is its own keysym, others the legacy one or Unicode's. */
export function keysymForChar(char: string, names: KeysymNames): number {
  if (char === "\n" || char === "\r") return RETURN;
  if (char === "\t") return TAB;
  const cp = char.codePointAt(0)!;
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;
  return names.byChar.get(char) ?? 0x01000000 + cp;
}

/** The other keysym a keyboard map may list for the same character (legacy vs Unicode spelling). */
export function alternateKeysym(char: string, keysym: number): number | undefined {
  const cp = char.codePointAt(0)!;
  const unicode = 0x01000000 + cp;
  return keysym === unicode ? undefined : cp > 0xff ? unicode : undefined;
}
