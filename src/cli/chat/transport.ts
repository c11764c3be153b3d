import type { Env } from "../../config/env.ts";
import { fermixPaths, resolveHome } from "../../config/paths.ts";
import { FermixError } from "../../error.ts";
import { createDaemonClient, NOT_RUNNING } from "../../protocol/client.ts";
import type { DaemonClient } from "../../protocol/daemon-client-contract.ts";
import type { AskDone, AskRequest } from "../../protocol/schemas.ts";

export type TurnCallbacks = NonNullable<Parameters<DaemonClient["ask"]>[1]>;

/** Where the chat's turns run: the daemon's socket, or one app in this process for the whole session. */
export type ChatTransport = {
  via: "daemon" | "in-process";
  ask(request: AskRequest, callbacks: TurnCallbacks): Promise<AskDone>;
  /** Waits for follow-up work (compaction) of an in-process session, then stops what it started. */
  close(): Promise<void>;
};

/** How long a signalled in-process chat gives its plugin servers to stop before they are killed outright. */
const SIGNAL_GRACE_MS = 2_000;

/**
 * Like `fermix ask`'s delivery, decided once for the session: the daemon when it answers (`--daemon` requires
 * it: exit 3 when down), otherwise in-process (`--no-daemon` forces that). In-process keeps one app for every
 * line, so plugin servers start once and the conversation's lane orders the turns as in the daemon.
 */
export async function connectChat(env: Env, daemonFlag: boolean | undefined): Promise<ChatTransport> {
  const paths = fermixPaths(resolveHome(env));
  if (daemonFlag !== false) {
    const client = createDaemonClient(paths.socket);
    try {
      await client.hello();
      return { via: "daemon", ask: (request, callbacks) => client.ask(request, callbacks), close: async () => {} };
    } catch (err) {
      if (!(err instanceof FermixError && err.code === NOT_RUNNING) || daemonFlag === true) throw err;
    }
  }
  const [{ createApp }, { askLocally }, { exitOnTerminationSignals }] = await Promise.all([
    import("../../app.ts"),
    import("../../gateway/local-ask.ts"),
    import("../termination.ts"),
  ]);
  const app = await createApp({ env });
  const stopped = new AbortController();
  const release = exitOnTerminationSignals(async () => {
    stopped.abort(new Error("interrupted"));
    await app.close();
  }, SIGNAL_GRACE_MS);
  return {
    via: "in-process",
    ask: (request, callbacks) => {
      const signal = callbacks.signal ? AbortSignal.any([callbacks.signal, stopped.signal]) : stopped.signal;
      return askLocally(app, request, { ...callbacks, signal });
    },
    close: async () => {
      release();
      await app.idle();
      await app.close();
    },
  };
}
