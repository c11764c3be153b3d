import { UnknownKey } from "./x11/x11-errors.ts";

/**
 * xdotool's key names (what the tool's `key` action takes in either mode) → playwright's, which Chromium's
 * keyboard is driven with in browser mode: "ctrl+l" → "Control+l", "Return" → "Enter", "Page_Up" → "PageUp".
 * Playwright's own spellings ("ArrowLeft", "Backspace") are accepted too, so a model may write either.
 */
const NAMES: Record<string, string> = {
  ctrl: "Control",
  control: "Control",
  control_l: "Control",
  control_r: "Control",
  shift: "Shift",
  shift_l: "Shift",
  shift_r: "Shift",
  alt: "Alt",
  alt_l: "Alt",
  alt_r: "Alt",
  super: "Meta",
  super_l: "Meta",
  win: "Meta",
  cmd: "Meta",
  meta: "Meta",
  return: "Enter",
  enter: "Enter",
  kp_enter: "Enter",
  esc: "Escape",
  escape: "Escape",
  backspace: "Backspace",
  del: "Delete",
  delete: "Delete",
  tab: "Tab",
  iso_left_tab: "Tab",
  space: "Space",
  page_up: "PageUp",
  pageup: "PageUp",
  pgup: "PageUp",
  prior: "PageUp",
  page_down: "PageDown",
  pagedown: "PageDown",
  pgdn: "PageDown",
  next: "PageDown",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  arrowup: "ArrowUp",
  arrowdown: "ArrowDown",
  arrowleft: "ArrowLeft",
  arrowright: "ArrowRight",
  home: "Home",
  end: "End",
  insert: "Insert",
  plus: "+",
  minus: "-",
};

/** One combination, xdotool spelling → playwright's `keyboard.press` spelling; an unknown name is refused. */
export function playwrightKeys(combo: string): string {
  // "ctrl++" would split into empty names: a literal plus is written "plus", as in xdotool.
  return combo
    .split("+")
    .map((raw) => {
      const name = raw.trim();
      if (name.length === 0)
        throw UnknownKey('an empty key name in the combination (write e.g. "ctrl+l")', { key: name });
      const known = NAMES[name.toLowerCase()];
      if (known) return known;
      if ([...name].length === 1) return name;
      const fn = /^f([1-9]|1[0-9]|2[0-4])$/i.exec(name);
      if (fn) return `F${fn[1]}`;
      throw UnknownKey(
        `"${name}" is no key name: use names joined by "+", e.g. Return, Tab, Escape, BackSpace, Delete, Up, ` +
          "Page_Down, Home, F1–F12, space, a letter, and ctrl, shift, alt or super as modifiers (ctrl+shift+t)",
        { key: name },
      );
    })
    .join("+");
}
