import { nodeModule } from "../runtime/host.ts";
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
  if (explicit) return explicit.startsWith("/") ? explicit : nodePath().resolve(explicit);
  return under(env.HOME || nodeModule<typeof import("node:os")>("node:os").homedir())(".fermix");
}

/*
 * Every `fermix ask` reads these paths before its first byte goes out, and evaluating node:path and node:os is a
 * measurable part of a compiled client's start (issue 31). fermix runs on Linux and macOS only, where joining clean
 * segments under a clean home is concatenation with "/"; a home node:path would normalise (an empty, "." or ".."
 * segment, a trailing "/") still goes through it, so every path is exactly node:path's. The segments joined under
 * a home are this file's own literals, all clean.
 */
function under(home: string): (...parts: string[]) => string {
  if (!isNormal(home)) return (...parts) => nodePath().join(home, ...parts);
  const prefix = `${home}/`;
  return (...parts) => prefix + parts.join("/");
}

/** A path node:path's join returns unchanged: no empty, "." or ".." segment, and not empty itself. */
function isNormal(path: string): boolean {
  if (!path) return false;
  let start = path.startsWith("/") ? 1 : 0;
  for (;;) {
    const slash = path.indexOf("/", start);
    const end = slash < 0 ? path.length : slash;
    const segment = path.slice(start, end);
    if (segment === "" || segment === "." || segment === "..") return false;
    if (slash < 0) return true;
    start = slash + 1;
  }
}

function nodePath(): typeof import("node:path") {
  return nodeModule<typeof import("node:path")>("node:path");
}

export function fermixPaths(home: string): FermixPaths {
  const join = under(home);
  return {
    home,
    config: join("config.toml"),
    db: join("memory.db"),
    socket: join("daemon.sock"),
    lock: join("daemon.lock"),
    logs: join("logs"),
    logFile: join("logs", "fermix.log"),
    traces: join("traces"),
    secrets: join("secrets"),
    workspace: join("workspace"),
    auth: join("auth.json"),
    chatHistory: join("chat_history"),
    budgetNotices: join("budget-notices.json"),
    web: { setupToken: join("setup-token"), launchToken: join("setup-launch-token.json") },
    children: join("run", "children"),
    browser: { profile: join("browser", "profile"), downloads: join("browser", "downloads") },
    skills: join("skills"),
    plugins: {
      root: join("plugins"),
      installed: join("plugins", "installed"),
      record: join("plugins", "installed.json"),
      staging: join("plugins", "staging"),
      lock: join("plugins", ".lock"),
      toolCache: join("plugins", "mcp-tools"),
    },
    upgrade: {
      previous: join(".previous"),
      history: join("upgrades.jsonl"),
      lock: join("upgrade.lock"),
      journal: join("upgrade.journal.json"),
    },
    promptFiles: {
      identity: join("bootstrap", "main", "IDENTITY.md"),
      soul: join("bootstrap", "main", "SOUL.md"),
      guidance: join("bootstrap", "main", "FERMIX.md"),
      user: join("memory", "main", "USER.md"),
      memory: join("memory", "main", "MEMORY.md"),
    },
  };
}
