import { defineError } from "../../error.ts";
import { acquirePidLock } from "../../fs/pid-lock.ts";

export const PluginStoreBusy = defineError<{ pid: number }>("plugin_store_busy");

/** The plugin store's lock (also auth.json's): see acquirePidLock. */
export function acquireStoreLock(lock: string, timeoutMs: number): Promise<() => void> {
  return acquirePidLock(lock, timeoutMs, (pid) =>
    PluginStoreBusy(`the plugin store is busy: another install (pid ${pid}) holds ${lock}`, { pid }),
  );
}
