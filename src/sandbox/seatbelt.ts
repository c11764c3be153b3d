/**
 * macOS: a sandbox-exec (Seatbelt) profile with the same shape as the bubblewrap jail — reads allowed,
 * writes only in the roots and temp dirs, credentials neither readable nor writable. UNTESTED HERE: no
 * macOS machine runs these tests. Kept small on purpose so it can be read and checked by eye; in SBPL a
 * later rule takes precedence over an earlier one for the same operation, so the denials come last.
 */
export function seatbeltProfile(opts: {
  writable: string[];
  denied: string[];
  fermixHome: string;
  fermixWorkspace: string;
}): string {
  const subpaths = (paths: string[]) => paths.map((p) => `(subpath ${quote(p)})`).join(" ");
  const fermixState = `(require-all (subpath ${quote(opts.fermixHome)}) (require-not (subpath ${quote(opts.fermixWorkspace)})))`;
  return [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    `(allow file-write* ${subpaths(opts.writable)} (literal "/dev/null") (literal "/dev/zero") (subpath "/dev/fd") (regex #"^/dev/tty"))`,
    `(deny file-read* file-write* ${subpaths(opts.denied)} ${fermixState})`,
    "",
  ].join("\n");
}

function quote(path: string): string {
  return `"${path.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

export function seatbeltArgv(binary: string, profile: string, command: string[]): string[] {
  return [binary, "-p", profile, ...command];
}
