import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { createDaemonClient, NOT_RUNNING } from "../protocol/client.ts";
import type { DaemonClient } from "../protocol/daemon-client-contract.ts";

export function connectDaemon(): { client: DaemonClient; socket: string } {
  const paths = fermixPaths(resolveHome(processEnv()));
  return { client: createDaemonClient(paths.socket), socket: paths.socket };
}

/** The running daemon's answer, or undefined when no daemon runs; any other failure is thrown. */
export async function ifDaemonRuns<T>(ask: (client: DaemonClient) => Promise<T>): Promise<T | undefined> {
  try {
    return await ask(connectDaemon().client);
  } catch (err) {
    if (err instanceof FermixError && err.code === NOT_RUNNING) return undefined;
    throw err;
  }
}
