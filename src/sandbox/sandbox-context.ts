import type { ProtectedPaths } from "./protected-paths.ts";
import type { SandboxMode } from "./types.ts";

/** What every judgement needs, resolved once when the sandbox is created. All paths are canonical. */
export type SandboxContext = {
  mode: SandboxMode;
  home: string;
  fermixHome: string;
  /** `$FERMIX_HOME/workspace`: the one part of FERMIX_HOME open to tools, and the default workspace. */
  defaultWorkspace: string;
  workspace: string;
  granted: string[];
  blocked: string[];
  protected: ProtectedPaths;
  /** Named in messages that send people to the config. */
  configFile: string;
};
