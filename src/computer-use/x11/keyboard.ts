import { setTimeout } from "node:timers/promises";
import type { X11Connection } from "./connection.ts";
import { alternateKeysym, indexKeysyms, type KeysymNames, keysymForChar, keysymForName } from "./keysyms.ts";

/** A key to press: its keycode, and whether Shift must be held for the wanted keysym (the map's second column). */
type KeyStroke = { keycode: number; shift: boolean };

const SHIFT_L = 0xffe1;
/** How long the application gets to handle keystrokes on remapped spares before they are rebound (see bindSpare). */
const REBIND_SETTLE_MS = 100;
/** MappingNotify's `request` for a keyboard (not modifier or pointer) mapping change. */
const MAPPING_KEYBOARD = 1;

/**
 * The keyboard as XTest sees it: keycodes, not characters. A character is typed by finding a keycode whose map
 * lists its keysym (column 0 plain, column 1 with Shift). One that no key produces (é on a US map, emoji) gets a
 * spare keycode — one the map leaves empty — remapped to it with ChangeKeyboardMapping, as xdotool does.
 *
 * Remapped spares stay bound until close(): an application reads the map lazily after a MappingNotify, so undoing
 * the binding right after the keystroke could let it read the restored map and see nothing. When every spare is
 * taken they are all rebound at once after a short pause (bindSpare); close() restores them all.
 */
export type Keyboard = {
  typeText(text: string): Promise<void>;
  pressKeys(combo: string): Promise<void>;
  /** Gives the spare keycodes back their empty mapping. */
  restore(): Promise<void>;
};

export async function createKeyboard(conn: X11Connection): Promise<Keyboard> {
  const names: KeysymNames = indexKeysyms(conn.keySyms);
  const min = conn.info.min_keycode;
  const count = conn.info.max_keycode - min + 1;
  let perKeycode = 2;
  let strokes = new Map<number, KeyStroke>();
  let spares: number[] = [];
  let shiftKey: number | undefined;
  const bound = new Map<number, number>(); // spare keycode → keysym it is bound to now
  const taken = new Set<number>(); // every spare keycode this keyboard has ever bound (restore() empties them)
  // The owner may switch layouts while a session runs: the server says so with MappingNotify, and the map is read
  // again before the next keystroke (our own remaps notify too; re-reading then is one cheap round trip).
  let stale = true;
  conn.x.on("event", (ev) => {
    if (ev.name === "MappingNotify" && ev.request === MAPPING_KEYBOARD) stale = true;
  });

  const loadMap = async () => {
    stale = false;
    const rows = await conn.call<number[][]>("GetKeyboardMapping", (cb) => conn.x.GetKeyboardMapping(min, count, cb));
    perKeycode = rows[0]?.length ?? 2;
    strokes = new Map();
    spares = [];
    rows.forEach((row, i) => {
      const keycode = min + i;
      // A spare we bound still counts as spare: it is ours to rebind, and what the server lists on it is only ours
      // to use while `bound` says so.
      if (taken.has(keycode) || row.every((sym) => sym === 0)) {
        spares.push(keycode);
        const sym = bound.get(keycode);
        if (sym !== undefined) strokes.set(sym, { keycode, shift: false });
        return;
      }
      for (const column of [0, 1]) {
        const sym = row[column];
        if (sym && !strokes.has(sym)) strokes.set(sym, { keycode, shift: column === 1 });
      }
    });
    shiftKey = strokes.get(SHIFT_L)?.keycode;
  };
  await loadMap();

  const bindSpare = async (keysym: number): Promise<KeyStroke> => {
    let keycode = spares.find((k) => !bound.has(k));
    if (keycode === undefined) {
      if (bound.size === 0) throw new Error("the keyboard map has no spare keycode to type this character with");
      // Every spare is taken (Xvfb has 19): they are all rebound, but only once the application has handled the
      // keystrokes sent with the old bindings — it looks a keycode up when it processes the key, so rebinding
      // sooner would make it read the new character (or none). No X event says when that is; a pause, as xdotool
      // paces its keystrokes, once per round of spares rather than per character.
      await conn.sync();
      await setTimeout(REBIND_SETTLE_MS);
      for (const sym of bound.values()) strokes.delete(sym);
      bound.clear();
      keycode = spares[0]!;
    }
    await conn.call<void>("ChangeKeyboardMapping", (cb) =>
      conn.x.ChangeKeyboardMapping(keycode, perKeycode, new Array(perKeycode).fill(keysym), cb),
    );
    bound.set(keycode, keysym);
    taken.add(keycode);
    const stroke = { keycode, shift: false };
    strokes.set(keysym, stroke);
    return stroke;
  };

  const strokeFor = async (keysym: number, alternate?: number): Promise<KeyStroke> => {
    if (stale) await loadMap();
    return strokes.get(keysym) ?? (alternate !== undefined ? strokes.get(alternate) : undefined) ?? bindSpare(keysym);
  };

  const key = (type: number, keycode: number) => conn.xtest.FakeInput(type, keycode, 0, 0, 0, 0);
  const tap = (stroke: KeyStroke) => {
    const shift = stroke.shift ? shiftKey : undefined;
    if (shift !== undefined) key(conn.xtest.KeyPress, shift);
    key(conn.xtest.KeyPress, stroke.keycode);
    key(conn.xtest.KeyRelease, stroke.keycode);
    if (shift !== undefined) key(conn.xtest.KeyRelease, shift);
  };

  return {
    async typeText(text) {
      for (const char of text) {
        const keysym = keysymForChar(char, names);
        tap(await strokeFor(keysym, alternateKeysym(char, keysym)));
      }
      await conn.sync();
    },
    async pressKeys(combo) {
      // "ctrl++" would split into empty names: a literal plus is written "plus", as in xdotool.
      const keysyms = combo.split("+").map((name) => keysymForName(name.trim(), names));
      const held: KeyStroke[] = [];
      for (const keysym of keysyms) held.push(await strokeFor(keysym));
      // A capital in a combination ("ctrl+T") needs Shift held like any other modifier.
      const shift = held.some((s) => s.shift) ? shiftKey : undefined;
      if (shift !== undefined) key(conn.xtest.KeyPress, shift);
      for (const s of held) key(conn.xtest.KeyPress, s.keycode);
      for (const s of [...held].reverse()) key(conn.xtest.KeyRelease, s.keycode);
      if (shift !== undefined) key(conn.xtest.KeyRelease, shift);
      await conn.sync();
    },
    async restore() {
      for (const keycode of taken) {
        await conn.call<void>("ChangeKeyboardMapping", (cb) =>
          conn.x.ChangeKeyboardMapping(keycode, perKeycode, new Array(perKeycode).fill(0), cb),
        );
      }
      bound.clear();
      taken.clear();
    },
  };
}
