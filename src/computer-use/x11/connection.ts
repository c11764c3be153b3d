import type { X11Client, X11Display, X11XTest } from "x11";
import { DisplayUnreachable, NoXTest, X11RequestFailed } from "./x11-errors.ts";

/**
 * One connection to an X display, in promises. The `x11` package (pure JavaScript, the X11 wire protocol over the
 * unix socket) is loaded here by dynamic import only, so the hot paths (`fermix ask`, `--version`) never evaluate
 * it: it costs nothing until computer use is actually used.
 */
export type X11Connection = {
  display: string;
  x: X11Client;
  info: X11Display;
  xtest: X11XTest;
  keySyms: Record<string, { code: number; description: string | null } | number>;
  /** Turns one callback-style request into a promise; a dropped connection rejects it instead of hanging. */
  call<T>(request: string, send: (cb: (err: unknown, result: T) => unknown) => void): Promise<T>;
  /** A round trip: every request sent so far was processed; an X error one of them caused is thrown here. */
  sync(): Promise<void>;
  close(): Promise<void>;
};

/** A connection that hangs in setup (a TCP display behind a firewall) must not hold a turn forever. */
const CONNECT_TIMEOUT_MS = 10_000;
const CLOSE_TIMEOUT_MS = 2_000;

export async function connectX11(display: string): Promise<X11Connection> {
  const x11 = (await import("x11")).default;
  const pending = new Set<(err: Error) => void>();
  let broken: Error | undefined;
  // Errors of requests sent without a callback (XTest's FakeInput) arrive as events: kept for the next sync().
  let asyncError: Error | undefined;

  const { client, info } = await new Promise<{ client: X11Client; info: X11Display }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(DisplayUnreachable(`the X display ${display} did not answer within 10 s`, { display })),
      CONNECT_TIMEOUT_MS,
    );
    // shm: false keeps the plain net socket: the fd-passing transport (MIT-SHM) loads the runtime's FFI module, which a compiled
    // binary need not carry and a screenshot every few seconds does not need.
    const client = x11.createClient({ display, shm: false }, (err, info) => {
      clearTimeout(timer);
      if (err)
        return reject(DisplayUnreachable(`cannot connect to the X display ${display}: ${err.message}`, { display }));
      isolateAtomCache(client);
      resolve({ client, info });
    });
    client.on("error", (err) => {
      asyncError = err;
    });
  });

  const fail = (err: Error) => {
    broken ??= err;
    for (const reject of pending) reject(err);
    pending.clear();
  };
  client.on("end", () => fail(DisplayUnreachable(`the X display ${display} closed the connection`, { display })));
  client.on("error", (err) => {
    asyncError = err;
  });

  const call = <T>(request: string, send: (cb: (err: unknown, result: T) => unknown) => void): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (broken) return reject(broken);
      pending.add(reject);
      send((err, result) => {
        pending.delete(reject);
        if (err) reject(requestError(request, err));
        else resolve(result);
        // Tells the package the error was handled, so it does not also emit it as an event.
        return true;
      });
    });

  const sync = async () => {
    await call<unknown>("sync", (cb) => client.GetInputFocus(cb));
    const err = asyncError;
    asyncError = undefined;
    if (err) throw requestError("input", err);
  };

  const xtest = await call<X11XTest>("QueryExtension XTEST", (cb) => client.require("xtest", cb)).catch(() => {
    client.terminate();
    throw NoXTest(
      `the X display ${display} has no XTest extension, so fermix cannot send mouse and keyboard input there`,
      { display },
    );
  });

  return {
    display,
    x: client,
    info,
    xtest,
    keySyms: x11.keySyms,
    call,
    sync,
    close: () =>
      new Promise<void>((resolve) => {
        if (broken) return resolve();
        broken = DisplayUnreachable(`the connection to ${display} was closed`, { display });
        // close() waits for a round trip first; a server that is already gone never answers it.
        const timer = setTimeout(() => {
          client.terminate();
          resolve();
        }, CLOSE_TIMEOUT_MS);
        client.close(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

function requestError(request: string, err: unknown) {
  const e = err as { message?: string; error?: number };
  return X11RequestFailed(`the X server refused ${request}: ${e.message ?? String(err)}`, {
    request,
    ...(typeof e.error === "number" ? { xError: e.error } : {}),
  });
}

/** Atoms 1–68 are predefined by the protocol (WM_CLASS is 67, WM_NAME 39): the same on every server. */
const LAST_PREDEFINED_ATOM = 68;

/**
 * The package caches interned atoms in one module-level object that every client shares (x11 4.2.2), so a second
 * connection — to a restarted or another X server — would be handed the first server's numbers for
 * _NET_WM_NAME and get BadAtom. Each connection gets its own cache, seeded with the predefined atoms only.
 */
function isolateAtomCache(client: X11Client): void {
  const own = Object.entries(client.atoms).filter(([, id]) => id <= LAST_PREDEFINED_ATOM);
  client.atoms = Object.fromEntries(own);
  client.atom_names = Object.fromEntries(own.map(([name, id]) => [id, name]));
}
