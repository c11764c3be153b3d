import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { Env } from "./env.ts";

/** The only module that knows FERMIX_HOME's layout. */
export type FermixPaths = {
  home: string;
  config: string;
  db: string;
  socket: string;
  lock: string;
  logs: string;
  logFile: string;
  traces: string;
  secrets: string;
  workspace: string;
  skills: string;
  /** OAuth tokens of plugins, 0600. */
  auth: string;
  /** `fermix chat`'s line history across runs, 0600, newest last. */
  chatHistory: string;
  /** The web setup page's long-lived secret (0600, never in a URL) and its one-time launch token (15 min). */
  web: { setupToken: string; launchToken: string };
  /** One record per running fermix of the child process groups it started, for reaping after a SIGKILL. */
  children: string;
  /** The browser tool's persistent Chromium profile and its downloads. */
  browser: { profile: string; downloads: string };
  /** The plugin store: installed/<name>/<version>/ with a `current` link per plugin, installed.json, a lock. */
  plugins: {
    root: string;
    installed: string;
    record: string;
    staging: string;
    lock: string;
    /** The last tools each MCP-rail plugin's server reported, so a one-shot ask can offer them unstarted. */
    toolCache: string;
  };
  /** `fermix upgrade`: the binary it replaced, its append-only history, its lock and its in-flight journal. */
  upgrade: { previous: string; history: string; lock: string; journal: string };
  /** Which budget notices (80 % of [fermix_core.budget]) were given in which period, so none is repeated. */
  budgetNotices: string;
  /** Prompt files, seeded once and the owner's afterwards. */
  promptFiles: { identity: string; soul: string; guidance: string; user: string; memory: string };
};

export function resolveHome(env: Env): string {
  const explicit = env.FERMIX_HOME;
  if (explicit) return isAbsolute(explicit) ? explicit : resolve(explicit);
  return join(env.HOME || homedir(), ".fermix");
}

export function fermixPaths(home: string): FermixPaths {
  return {
    home,
    config: join(home, "config.toml"),
    db: join(home, "memory.db"),
    socket: join(home, "daemon.sock"),
    lock: join(home, "daemon.lock"),
    logs: join(home, "logs"),
    logFile: join(home, "logs", "fermix.log"),
    traces: join(home, "traces"),
    secrets: join(home, "secrets"),
    workspace: join(home, "workspace"),
    auth: join(home, "auth.json"),
    chatHistory: join(home, "chat_history"),
    budgetNotices: join(home, "budget-notices.json"),
    web: { setupToken: join(home, "setup-token"), launchToken: join(home, "setup-launch-token.json") },
    children: join(home, "run", "children"),
    browser: { profile: join(home, "browser", "profile"), downloads: join(home, "browser", "downloads") },
    skills: join(home, "skills"),
    plugins: {
      root: join(home, "plugins"),
      installed: join(home, "plugins", "installed"),
      record: join(home, "plugins", "installed.json"),
      staging: join(home, "plugins", "staging"),
      lock: join(home, "plugins", ".lock"),
      toolCache: join(home, "plugins", "mcp-tools"),
    },
    upgrade: {
      previous: join(home, ".previous"),
      history: join(home, "upgrades.jsonl"),
      lock: join(home, "upgrade.lock"),
      journal: join(home, "upgrade.journal.json"),
    },
    promptFiles: {
      identity: join(home, "bootstrap", "main", "IDENTITY.md"),
      soul: join(home, "bootstrap", "main", "SOUL.md"),
      guidance: join(home, "bootstrap", "main", "FERMIX.md"),
      user: join(home, "memory", "main", "USER.md"),
      memory: join(home, "memory", "main", "MEMORY.md"),
    },
  };
}
