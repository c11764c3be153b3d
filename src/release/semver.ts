import { defineError } from "../error.ts";

export const VersionInvalid = defineError("invalid_argument");

/** MAJOR.MINOR.PATCH with an optional pre-release (`0.2.0-rc.1`); build metadata is not used by releases. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

export type Semver = { major: number; minor: number; patch: number; pre: string[] };

export function parseVersion(text: string): Semver | undefined {
  const m = SEMVER.exec(text.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre: m[4] ? m[4].split(".") : [] };
}

export function isVersion(text: string): boolean {
  return parseVersion(text) !== undefined;
}

/** Semver precedence: negative when a < b. A pre-release sorts before its release. Throws on a non-version. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x) throw VersionInvalid(`"${a}" is not a version (expected MAJOR.MINOR.PATCH, e.g. 0.2.0)`);
  if (!y) throw VersionInvalid(`"${b}" is not a version (expected MAJOR.MINOR.PATCH, e.g. 0.2.0)`);
  for (const key of ["major", "minor", "patch"] as const) {
    if (x[key] !== y[key]) return x[key] - y[key];
  }
  if (!x.pre.length || !y.pre.length) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i]!;
    const q = y.pre[i]!;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}
