import { realpathSync } from "node:fs";
import { defineError } from "../error.ts";
import { spawn, which } from "../runtime/processes.ts";

/** Exit 2: the binary belongs to a package manager, which must do the upgrade. */
export const PackageManaged = defineError<{ manager: string; command: string }>("package_managed");

export type InstallMethod =
  | { kind: "standalone" }
  | { kind: "homebrew"; command: string }
  | { kind: "dpkg"; package: string; command: string };

/**
 * How this binary was installed, so `fermix upgrade` never rewrites a file a package manager owns (it would
 * be overwritten again, or fail the manager's own checks). Homebrew is recognised by its paths (the Cellar, or
 * a `homebrew` prefix), dpkg by `dpkg -S` owning the file.
 */
export async function detectInstallMethod(
  binary: string,
  deps: { dpkgOwner?: (path: string) => Promise<string | undefined> } = {},
): Promise<InstallMethod> {
  const paths = [binary, resolved(binary)];
  if (paths.some((p) => p.includes("/Cellar/") || p.includes("/homebrew/") || p.includes("/.linuxbrew/"))) {
    return { kind: "homebrew", command: "brew upgrade fermix" };
  }
  const owner = await (deps.dpkgOwner ?? dpkgOwner)(resolved(binary));
  if (owner) return { kind: "dpkg", package: owner, command: `sudo apt-get install --only-upgrade ${owner}` };
  return { kind: "standalone" };
}

export function refusePackageManaged(binary: string, method: Exclude<InstallMethod, { kind: "standalone" }>) {
  const manager = method.kind === "homebrew" ? "Homebrew" : `dpkg (package ${method.package})`;
  return PackageManaged(
    `${binary} is managed by ${manager}; upgrade it with: ${method.command} (then fermix restart)`,
    { manager: method.kind, command: method.command },
  );
}

function resolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The package owning `path` per `dpkg -S`, or undefined (no dpkg, or not owned). */
async function dpkgOwner(path: string): Promise<string | undefined> {
  if (!which("dpkg")) return undefined;
  const child = spawn(["dpkg", "-S", path], { stdout: "pipe", stderr: "ignore", stdin: "ignore" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) return undefined;
  // "fermix: /usr/bin/fermix" (or "fermix:amd64: …")
  const name = out.split(":")[0]?.trim();
  return name || undefined;
}
