import { processEnv } from "../config/env.ts";
import { onBun } from "../runtime/host.ts";
import { selfCommand } from "../service/self.ts";
import { allocatorExec } from "./allocator-settings.ts";

/**
 * `fermix run`'s first step: the same process (same pid, for the service manager), started again with the allocator
 * settings of a long-running daemon (allocator-settings.ts), before anything is opened. Bun only; a no-op once set.
 */
export function restartWithAllocatorSettings(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: Record<string, string>) => never }).execve;
  const exec = allocatorExec(processEnv(), selfCommand(), process.argv.slice(2), onBun && typeof execve === "function");
  if (exec) execve!(exec.file, exec.args, exec.env);
}
