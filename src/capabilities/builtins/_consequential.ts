import type { WindowInfo } from "../../computer-use/driver-contract.ts";

// Terminal emulators by WM_CLASS: whatever is typed into one runs as the owner.
const TERMINALS = new Set([
  "xterm",
  "uxterm",
  "gnome-terminal",
  "gnome-terminal-server",
  "konsole",
  "alacritty",
  "kitty",
  "xfce4-terminal",
  "terminator",
  "tilix",
  "urxvt",
  "rxvt",
  "st",
  "wezterm",
  "foot",
  "lxterminal",
  "mate-terminal",
  "qterminal",
  "terminology",
  "org.wezfurlong.wezterm",
]);

// Window titles that name a step the owner cannot take back.
const CONSEQUENTIAL_TITLE = /\b(send|pay|payment|checkout|purchase|buy|order|delete|remove|transfer|wire|sign)\b/i;

export function isTerminal(window: WindowInfo | undefined): boolean {
  return !!window?.wmClass.some((c) => TERMINALS.has(c.toLowerCase()));
}

/**
 * Why an action on `window` needs the owner's yes (confirm_consequential), or undefined when it does not: text or
 * a click into a terminal, or into a window whose title looks like sending, paying, buying, deleting or moving
 * money. A pointer move or a scroll changes nothing and is never asked about.
 */
export function consequentialReason(action: string, window: WindowInfo | undefined, keys?: string): string | undefined {
  const acts =
    action === "type" ||
    action.endsWith("click") ||
    action === "left_click_drag" ||
    (action === "key" && /(^|\+)(return|kp_enter|enter|delete)$/i.test(keys ?? ""));
  if (!acts || !window) return undefined;
  if (isTerminal(window)) return "a terminal";
  const match = CONSEQUENTIAL_TITLE.exec(window.title);
  return match ? `a window titled "${window.title}" (looks like "${match[1]!.toLowerCase()}")` : undefined;
}

/** allowed_apps: a window is allowed when one of its WM_CLASS names equals an entry, or its title contains one. */
export function appAllowed(window: WindowInfo | undefined, allowed: readonly string[]): boolean {
  if (!window) return false;
  const names = allowed.map((a) => a.toLowerCase());
  if (window.wmClass.some((c) => names.includes(c.toLowerCase()))) return true;
  const title = window.title.toLowerCase();
  return names.some((n) => title.includes(n));
}

/** How a window is named to the owner: `"Inbox" (firefox)`. */
export function describeWindow(window: WindowInfo | undefined): string {
  if (!window) return "an unknown window";
  const cls = window.wmClass.at(-1) ?? window.wmClass[0];
  if (window.title && cls) return `"${window.title}" (${cls})`;
  return window.title ? `"${window.title}"` : cls ? `a ${cls} window` : "an unnamed window";
}
