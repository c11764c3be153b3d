/*
 * What the computer_use tool needs from a desktop: a picture of the screen and synthetic input, in real screen
 * pixels. The tool (capabilities/builtins/computer-use.ts) scales between the model's grid and the screen, keeps
 * the owner's rules, and never talks to X11 itself; a driver (computer-use/x11/) does only this. macOS and other
 * platforms have no driver in this build: readiness says so.
 */

/** Why the desktop cannot be driven, in words the owner can act on; `ready` when it can. */
export type DriverReadiness =
  | { state: "ready"; display: string; width: number; height: number }
  | { state: "unavailable"; reason: string; fix: string };

/** A mouse button as X11 numbers them. */
export type MouseButton = "left" | "middle" | "right";

/** The window under a point, or the focused one: what `allowed_apps` and the consequential-target check read. */
export type WindowInfo = {
  /** WM_CLASS instance and class, e.g. ["xterm", "XTerm"]; empty when the window has none. */
  wmClass: string[];
  /** _NET_WM_NAME or WM_NAME; "" when unnamed. */
  title: string;
  /** The page's address, in browser mode (what allowed_domains and the address floor judge); absent on a desktop. */
  url?: string;
};

/** A screenshot in real screen pixels: RGBA, row-major, width × height × 4 bytes. */
export type RawImage = { width: number; height: number; rgba: Uint8Array };

export interface DesktopDriver {
  /** The screen's size in real pixels. */
  readonly width: number;
  readonly height: number;
  /** The whole screen (or a region of it, in real pixels). */
  capture(region?: { x: number; y: number; width: number; height: number }): Promise<RawImage>;
  moveMouse(x: number, y: number): Promise<void>;
  /** Press and release `button` `count` times at the current position. */
  click(button: MouseButton, count: number): Promise<void>;
  /** Press at the current position, move to (x, y), release. */
  drag(fromX: number, fromY: number, toX: number, toY: number): Promise<void>;
  /** Wheel clicks at the current position. */
  scroll(direction: "up" | "down" | "left" | "right", amount: number): Promise<void>;
  /** Types text as keystrokes (any Unicode the keyboard map can be made to produce). */
  typeText(text: string): Promise<void>;
  /** A key combination in xdotool's spelling: "Return", "ctrl+l", "ctrl+shift+t", "super". */
  pressKeys(combo: string): Promise<void>;
  /** The window at (x, y) in real pixels, or the focused window when no point is given. */
  windowAt(x?: number, y?: number): Promise<WindowInfo | undefined>;
  /** Closes the connection to the display. */
  close(): Promise<void>;
}

/** Opens the driver for a display (":N"); throws a FermixError with the reason when it cannot. */
export type OpenDriver = (display: string) => Promise<DesktopDriver>;
