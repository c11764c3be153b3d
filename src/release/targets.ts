import { readdirSync } from "node:fs";

/**
 * The platforms fermix ships for, named the way releases.json and install.sh name them
 * (reference: `linux-x86_64`, artifacts `fermix_<os>_<arch>`). fermix needs unix sockets and a
 * systemd/launchd service, so Windows is not a target.
 */
export type ReleaseTarget = {
  /** releases.json's `target`, and what `fermix --version --verbose` calls this build. */
  id: string;
  os: "linux" | "darwin";
  arch: "x86_64" | "arm64";
  libc?: "musl";
  /** `bun build --compile --target=` */
  compileTarget: string;
};

export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  { id: "linux-x86_64", os: "linux", arch: "x86_64", compileTarget: "bun-linux-x64" },
  { id: "linux-arm64", os: "linux", arch: "arm64", compileTarget: "bun-linux-arm64" },
  { id: "linux-x86_64-musl", os: "linux", arch: "x86_64", libc: "musl", compileTarget: "bun-linux-x64-musl" },
  { id: "linux-arm64-musl", os: "linux", arch: "arm64", libc: "musl", compileTarget: "bun-linux-arm64-musl" },
  { id: "darwin-x86_64", os: "darwin", arch: "x86_64", compileTarget: "bun-darwin-x64" },
  { id: "darwin-arm64", os: "darwin", arch: "arm64", compileTarget: "bun-darwin-arm64" },
];

/** `fermix_linux_x86_64`, `fermix_linux_x86_64_musl`: the file name of a target's binary in a release. */
export function artifactName(target: Pick<ReleaseTarget, "id">): string {
  return `fermix_${target.id.replaceAll("-", "_")}`;
}

export function targetById(id: string): ReleaseTarget | undefined {
  return RELEASE_TARGETS.find((t) => t.id === id);
}

/**
 * The target of the machine this process runs on. musl is told apart the way install.sh does it: by the
 * dynamic loader on disk, since a glibc binary does not start on a musl system.
 */
export function hostTarget(
  platform: string = process.platform,
  arch: string = process.arch,
  isMusl: () => boolean = detectMusl,
): ReleaseTarget | undefined {
  const os = platform === "linux" || platform === "darwin" ? platform : undefined;
  const cpu = arch === "x64" ? "x86_64" : arch === "arm64" ? "arm64" : undefined;
  if (!os || !cpu) return undefined;
  const musl = os === "linux" && isMusl();
  return RELEASE_TARGETS.find((t) => t.os === os && t.arch === cpu && (t.libc === "musl") === musl);
}

function detectMusl(): boolean {
  try {
    return readdirSync("/lib").some((f) => f.startsWith("ld-musl-"));
  } catch {
    return false;
  }
}
