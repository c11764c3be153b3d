// The npm `x11` package ships no types: these declare only the parts of its API the driver calls
// (callback style, as the package exposes them).
declare module "x11" {
  type Callback<T> = (err: (Error & { error?: number }) | null | undefined, result: T) => unknown;

  export type X11Visual = { vid: number; class: number; red_mask: number; green_mask: number; blue_mask: number };
  export type X11Screen = {
    root: number;
    pixel_width: number;
    pixel_height: number;
    root_depth: number;
    root_visual: number;
    depths: Record<number, Record<number, X11Visual>>;
  };
  export type X11Display = {
    client: X11Client;
    screen: X11Screen[];
    /** 0 LSBFirst, 1 MSBFirst. */
    image_byte_order: number;
    format: Record<number, { bits_per_pixel: number; scanline_pad: number }>;
    min_keycode: number;
    max_keycode: number;
  };
  export type X11XTest = {
    KeyPress: number;
    KeyRelease: number;
    ButtonPress: number;
    ButtonRelease: number;
    MotionNotify: number;
    FakeInput(type: number, detail: number, time: number, window: number, x: number, y: number): void;
  };
  export interface X11Client {
    atoms: Record<string, number>;
    atom_names: Record<number, string>;
    on(event: "error", listener: (err: Error) => void): void;
    on(event: "end" | "close", listener: () => void): void;
    on(event: "event", listener: (ev: { name: string; request?: number }) => void): void;
    stream: { on(event: "close" | "end", listener: () => void): void };
    require(ext: "xtest", cb: Callback<X11XTest>): void;
    InternAtom(onlyIfExists: boolean, name: string, cb: Callback<number>): void;
    GetProperty(
      del: number,
      window: number,
      property: number,
      type: number,
      longOffset: number,
      longLength: number,
      cb: Callback<{ type: number; format: number; data: Buffer }>,
    ): void;
    GetImage(
      format: number,
      drawable: number,
      x: number,
      y: number,
      width: number,
      height: number,
      planeMask: number,
      cb: Callback<{ depth: number; visualId: number; data: Buffer }>,
    ): void;
    TranslateCoordinates(
      src: number,
      dst: number,
      x: number,
      y: number,
      cb: Callback<{ child: number; destX: number; destY: number }>,
    ): void;
    QueryTree(window: number, cb: Callback<{ root: number; parent: number; children: number[] }>): void;
    QueryPointer(window: number, cb: Callback<{ rootX: number; rootY: number; child: number }>): void;
    GetInputFocus(cb: Callback<{ focus: number; revertTo: number }>): void;
    GetKeyboardMapping(first: number, count: number, cb: Callback<number[][]>): void;
    ChangeKeyboardMapping(first: number, keysymsPerKeycode: number, keysyms: number[], cb?: Callback<void>): void;
    sync(): Promise<void>;
    terminate(): void;
    close(cb?: (err?: Error) => void): void;
  }
  export function createClient(
    options: { display?: string; shm?: boolean; disableBigRequests?: boolean },
    cb: (err: Error | null | undefined, display: X11Display) => void,
  ): X11Client;
  export const keySyms: Record<string, { code: number; description: string | null } | number>;
  const x11: { createClient: typeof createClient; keySyms: typeof keySyms };
  export default x11;
}
