import { describe, expect, test } from "bun:test";
import { compareVersions, isVersion } from "../../src/release/semver.ts";

describe("release versions", () => {
  test("order by major, minor, patch, with a pre-release before its release", () => {
    const sorted = ["1.0.0", "0.10.0", "0.2.0", "0.2.0-rc.1", "0.2.0-rc.10", "0.2.0-rc.2", "0.2.0-beta", "0.1.9"].sort(
      compareVersions,
    );
    expect(sorted).toEqual([
      "0.1.9",
      "0.2.0-beta",
      "0.2.0-rc.1",
      "0.2.0-rc.2",
      "0.2.0-rc.10",
      "0.2.0",
      "0.10.0",
      "1.0.0",
    ]);
  });

  test("only MAJOR.MINOR.PATCH[-pre] is a version", () => {
    for (const ok of ["0.1.0", "10.20.30", "1.0.0-rc.1"]) expect(isVersion(ok)).toBe(true);
    for (const bad of ["", "1", "1.0", "v1.0.0", "01.0.0", "1.0.0+build", "1.0.0-", "latest"])
      expect(isVersion(bad)).toBe(false);
    expect(() => compareVersions("latest", "0.1.0")).toThrow('"latest" is not a version');
  });
});
