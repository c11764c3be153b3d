import type { Config } from "../config/schema.ts";
import { createSandbox } from "./create-sandbox.ts";
import type { Sandbox } from "./types.ts";

/**
 * The sandbox as config.toml's [sandbox] says now: grants from `fermix grant` or /confirm apply on the
 * next turn without a restart.
 */
export function createLiveSandbox(opts: { config: () => Config; userHome: string; fermixHome: string }): () => Sandbox {
  let built: { from: Config["sandbox"]; sandbox: Sandbox } | undefined;
  return () => {
    const section = opts.config().sandbox;
    if (!built || built.from !== section) {
      built = {
        from: section,
        sandbox: createSandbox({ userHome: opts.userHome, fermixHome: opts.fermixHome, config: section }),
      };
    }
    return built.sandbox;
  };
}
