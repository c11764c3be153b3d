import { isWithin, isWithinFolded, tildify } from "./_path.ts";

/**
 * Credentials and browser profiles under the user's home, relative to it. Denied in every mode, even
 * inside a granted root, and masked inside bubblewrap. Compared lower-cased: on a case-insensitive disk
 * `~/.SSH/id_rsa` is the same file as `~/.ssh/id_rsa`.
 */
export const HOME_PROTECTED = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".gnupg2",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".pgpass",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".config/gcloud",
  ".config/gh",
  ".config/op",
  ".azure",
  ".password-store",
  ".vault-token",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".terraform.d/credentials.tfrc.json",
  ".mozilla",
  ".config/google-chrome",
  ".config/chromium",
  ".local/share/keyrings",
  "Library/Keychains",
  "Library/Cookies",
  "Library/Application Support/Google/Chrome",
  "Library/Application Support/Firefox",
] as const;

/**
 * The operating system's own directories (Linux and macOS together: a name that does not exist costs
 * nothing). `/` itself is protected exactly; the others with everything below them — except inside the
 * user's home, so a home under `/root` or `/var/lib` keeps working.
 */
export const SYSTEM_DIRS = [
  "/etc",
  "/bin",
  "/sbin",
  "/usr",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/boot",
  "/dev",
  "/proc",
  "/sys",
  "/var",
  "/run",
  "/root",
  "/System",
  "/Library",
  "/private",
  "/cores",
] as const;

/**
 * Temp directories inside system dirs are everybody's scratch space, not system state: /tmp itself is
 * not protected, so neither are these (on macOS /tmp and $TMPDIR live under /private).
 */
export const SYSTEM_EXCEPTIONS = ["/var/tmp", "/private/tmp", "/private/var/tmp", "/private/var/folders"] as const;

export type Protection = { kind: "home" | "fermix" | "system"; entry: string; reason: string };

export type ProtectedPaths = {
  /** Absolute credential paths under the canonical home (the last of `homes`), for masking. */
  homeEntries: string[];
  fermixHome: string;
  /** Every absolute path named by the rules, for `status()` (FERMIX_HOME stands for all but its workspace/). */
  list: string[];
  /** Why `path` is protected, or null. `final` is false for paths only walked through on the way,
   * where only the name-based rules apply (every walk passes through system dirs like `/var`). */
  check(path: string, final: boolean): Protection | null;
};

export function protectedPaths(opts: {
  /** The home as given and as resolved; both are checked, since either spelling can reach it. */
  homes: string[];
  /** The canonical FERMIX_HOME: everything in it except `workspace/` is fermix's own state. */
  fermixHome: string;
  /** Places where the system-dir rule does not apply (the home, fermix's default workspace). */
  exempt: string[];
}): ProtectedPaths {
  const homes = [...new Set(opts.homes)];
  const homeEntries = homes.flatMap((home) => HOME_PROTECTED.map((entry) => `${home}/${entry}`));
  const fermixWorkspace = `${opts.fermixHome}/workspace`;
  const displayHome = homes.at(-1)!;

  function check(path: string, final: boolean): Protection | null {
    for (const entry of homeEntries) {
      if (isWithinFolded(path, entry)) {
        const shown = tildify(entry, homes.find((h) => isWithin(entry, h)) ?? displayHome);
        return { kind: "home", entry, reason: `it is inside ${shown}, which holds credentials` };
      }
    }
    if (isWithinFolded(path, opts.fermixHome) && !isWithinFolded(path, fermixWorkspace)) {
      return {
        kind: "fermix",
        entry: opts.fermixHome,
        reason: `it is fermix's own state in ${opts.fermixHome} (config, secrets, memory, logs); only ${fermixWorkspace} is open to tools`,
      };
    }
    if (!final) return null;
    if (path === "/") return { kind: "system", entry: "/", reason: "it is the filesystem root" };
    if (opts.exempt.some((place) => isWithin(path, place))) return null;
    if (SYSTEM_EXCEPTIONS.some((place) => isWithin(path, place))) return null;
    for (const dir of SYSTEM_DIRS) {
      if (isWithinFolded(path, dir)) {
        return { kind: "system", entry: dir, reason: `it is a system location (${dir})` };
      }
    }
    return null;
  }

  return {
    homeEntries: HOME_PROTECTED.map((entry) => `${displayHome}/${entry}`),
    fermixHome: opts.fermixHome,
    list: [...HOME_PROTECTED.map((entry) => `${displayHome}/${entry}`), opts.fermixHome, "/", ...SYSTEM_DIRS],
    check,
  };
}
