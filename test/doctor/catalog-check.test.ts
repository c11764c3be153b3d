import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catalogCheck } from "../../src/doctor/catalog-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { embeddedDir } from "../../src/embedded/assets.ts";
import { loadCatalog } from "../../src/plugins/catalog/load-catalog.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

describe("doctor: embedded catalog signature", () => {
  test("the catalog this build embeds verifies", async () => {
    const { rows } = await runDoctor(doctorDeps(home()), [catalogCheck]);
    expect(rows[0]!.status).toBe("ok");
    expect(rows[0]!.detail).toMatch(/^the embedded plugin catalog's signature verifies \(\d+ plugins\)$/);
  });

  test("a tampered index fails with the signature error and the reinstall fix", async () => {
    await loadCatalog(); // builds dist/embed/catalog in a fresh checkout
    const dir = mkdtempSync(join(tmpdir(), "fx-catalog-"));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(embeddedDir("catalog"), dir, { recursive: true });
    const index = join(dir, "index.json");
    writeFileSync(index, readFileSync(index, "utf8").replace('"plugins"', '"plugins" '));
    const { rows, ok } = await runDoctor(doctorDeps(home(), { loadCatalog: () => loadCatalog({ root: dir }) }), [
      catalogCheck,
    ]);
    expect(ok).toBe(false);
    expect(rows[0]).toMatchObject({
      status: "fail",
      fix: "reinstall fermix from a signed release (install.sh, or fermix upgrade); plugins cannot be installed until then",
    });
    expect(rows[0]!.detail).toStartWith("the embedded plugin catalog failed its signature check");
  });
});
