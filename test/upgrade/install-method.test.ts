import { describe, expect, test } from "bun:test";
import { detectInstallMethod, refusePackageManaged } from "../../src/upgrade/install-method.ts";

const noDpkg = { dpkgOwner: async () => undefined };

describe("how fermix was installed", () => {
  test("Homebrew paths are the package manager's", async () => {
    for (const path of [
      "/opt/homebrew/Cellar/fermix/0.1.0/bin/fermix",
      "/usr/local/Cellar/fermix/0.1.0/bin/fermix",
      "/home/linuxbrew/.linuxbrew/bin/fermix",
      "/opt/homebrew/bin/fermix",
    ]) {
      expect(await detectInstallMethod(path, noDpkg)).toEqual({ kind: "homebrew", command: "brew upgrade fermix" });
    }
  });

  test("a file dpkg owns is upgraded with apt", async () => {
    const method = await detectInstallMethod("/usr/bin/fermix", { dpkgOwner: async () => "fermix" });
    expect(method).toEqual({ kind: "dpkg", package: "fermix", command: "sudo apt-get install --only-upgrade fermix" });
    if (method.kind === "standalone") throw new Error("unreachable");
    const error = refusePackageManaged("/usr/bin/fermix", method);
    expect(error.code).toBe("package_managed");
    expect(error.message).toBe(
      "/usr/bin/fermix is managed by dpkg (package fermix); upgrade it with: sudo apt-get install --only-upgrade fermix (then fermix restart)",
    );
  });

  test("anything else is a standalone install", async () => {
    expect(await detectInstallMethod("/home/me/.local/bin/fermix", noDpkg)).toEqual({ kind: "standalone" });
  });
});
