import { bun, onBun } from "./host.ts";

/** True inside the compiled release binary; false when running from the source tree (Bun or Deno). */
export function isCompiledBinary(): boolean {
  return onBun && bun().isStandaloneExecutable;
}
