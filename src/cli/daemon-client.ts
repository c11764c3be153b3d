import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { createDaemonClient, type DaemonClient } from "../protocol/client.ts";

export function connectDaemon(): { client: DaemonClient; socket: string } {
  const paths = fermixPaths(resolveHome(processEnv()));
  return { client: createDaemonClient(paths.socket), socket: paths.socket };
}
