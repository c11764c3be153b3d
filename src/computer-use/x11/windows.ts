import type { WindowInfo } from "../driver-contract.ts";
import type { X11Connection } from "./connection.ts";
import { BAD_WINDOW, X11RequestFailed } from "./x11-errors.ts";

const NONE = 0;
const POINTER_ROOT = 1;
const ANY_PROPERTY_TYPE = 0;
/** Enough for any class or title (in 4-byte units). */
const PROPERTY_LONGS = 1024;

/**
 * Which application a point or the keyboard focus belongs to, read the way window managers do: the client window
 * is the one carrying WM_CLASS, found by walking down from the top-level window under the point (a reparenting
 * window manager puts a frame above it) or up from the focused one (toolkits focus an inner widget).
 */
export type WindowLookup = {
  at(x: number, y: number): Promise<WindowInfo | undefined>;
  focused(): Promise<WindowInfo | undefined>;
};

export function createWindowLookup(conn: X11Connection, root: number): WindowLookup {
  const atoms = new Map<string, number>();
  const atom = async (name: string) => {
    let id = atoms.get(name);
    if (id === undefined) {
      id = await conn.call<number>(`InternAtom ${name}`, (cb) => conn.x.InternAtom(false, name, cb));
      atoms.set(name, id);
    }
    return id;
  };
  const property = async (window: number, name: string) => {
    const id = await atom(name);
    const prop = await conn.call<{ type: number; data: Buffer }>(`GetProperty ${name}`, (cb) =>
      conn.x.GetProperty(0, window, id, ANY_PROPERTY_TYPE, 0, PROPERTY_LONGS, cb),
    );
    return prop.type === NONE ? undefined : prop.data;
  };
  const titleOf = async (window: number) =>
    (await property(window, "_NET_WM_NAME"))?.toString("utf8") ??
    (await property(window, "WM_NAME"))?.toString("latin1") ??
    "";
  const describe = async (window: number): Promise<WindowInfo | undefined> => {
    const wmClass = await property(window, "WM_CLASS");
    if (!wmClass) return undefined;
    // WM_CLASS is two NUL-terminated Latin-1 strings: instance, class.
    return { wmClass: wmClass.toString("latin1").split("\0").filter(Boolean), title: await titleOf(window) };
  };

  const childAt = async (parent: number, x: number, y: number) =>
    (
      await conn.call<{ child: number }>("TranslateCoordinates", (cb) =>
        conn.x.TranslateCoordinates(root, parent, x, y, cb),
      )
    ).child;

  const at = async (x: number, y: number): Promise<WindowInfo | undefined> => {
    let window = await childAt(root, x, y);
    if (window === NONE) return undefined;
    const topLevel = window;
    // Depth-bounded: a window tree deeper than this is not a real desktop.
    for (let depth = 0; depth < 32 && window !== NONE; depth++) {
      const info = await describe(window);
      if (info) return info;
      window = await childAt(window, x, y);
    }
    return { wmClass: [], title: await titleOf(topLevel) };
  };

  const focused = async (): Promise<WindowInfo | undefined> => {
    let { focus } = await conn.call<{ focus: number }>("GetInputFocus", (cb) => conn.x.GetInputFocus(cb));
    if (focus === NONE) return undefined;
    // PointerRoot (the default without a window manager): the keyboard goes to whatever is under the pointer.
    if (focus === POINTER_ROOT) {
      const pointer = await conn.call<{ rootX: number; rootY: number }>("QueryPointer", (cb) =>
        conn.x.QueryPointer(root, cb),
      );
      return at(pointer.rootX, pointer.rootY);
    }
    for (let depth = 0; depth < 32 && focus !== root && focus !== NONE; depth++) {
      const info = await describe(focus);
      if (info) return info;
      focus = (await conn.call<{ parent: number }>("QueryTree", (cb) => conn.x.QueryTree(focus, cb))).parent;
    }
    return undefined;
  };

  return { at: (x, y) => unlessGone(at(x, y)), focused: () => unlessGone(focused()) };
}

/** A window can close between two requests of the walk (the program just exited): then there is none there. */
async function unlessGone(lookup: Promise<WindowInfo | undefined>): Promise<WindowInfo | undefined> {
  try {
    return await lookup;
  } catch (err) {
    if (X11RequestFailed.is(err) && err.data.xError === BAD_WINDOW) return undefined;
    throw err;
  }
}
