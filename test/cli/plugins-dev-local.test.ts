import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { writePlugin } from "../fixture/plugin-folder.ts";

const defer = cleanupAfterEach();
const MAIN = join(import.meta.dir, "../../src/main.ts");

describe("fermix plugins list and doctor with dev_local problems", () => {
  test("each problem is a folder<TAB>problem row after the plugins, and a problems array in --json", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const root = join(h.userHome, "plugins");
    writePlugin(root, "alpha");
    const gmail = writePlugin(root, "gmail");
    const broken = writePlugin(root, "broken", { version: "one" });
    const missing = join(h.userHome, "nowhere");
    h.writeConfig(`[fermix_core.plugins]\ndev_local = ["${root}", "${missing}"]\n`);
    const run = (...args: string[]) =>
      runCommand([process.execPath, MAIN, "plugins", ...args], {
        env: { FERMIX_HOME: h.home, HOME: h.userHome, PATH: "/usr/bin:/bin" },
      });

    const list = await run("list");
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split("\n");
    expect(lines).toContain("alpha\t0.1.0\tdev_local\tdisabled\tdisabled\t—");
    expect(lines).toContain("gmail\t1.0.0\tbundled\tdisabled\tdisabled\t—");
    expect(lines.slice(-3).map((l) => l.split("\t")[0])).toEqual([broken, gmail, missing]);
    expect(lines.at(-2)).toBe(
      `${gmail}\t${gmail} is not loaded: gmail is a bundled plugin, which keeps its place; rename the folder and the name in its plugin.json`,
    );
    expect(lines.at(-1)).toStartWith(
      `${missing}\t${missing} ([fermix_core.plugins] dev_local in config.toml) does not exist`,
    );

    const doctor = await run("doctor");
    expect(doctor.stdout).toContain(`${broken}\t${broken} does not load: version: `);
    expect(doctor.stdout).toContain(`${gmail}\t${gmail} is not loaded`);
    const one = await run("doctor", "broken");
    expect(
      one.stdout
        .trimEnd()
        .split("\n")
        .map((l) => l.split("\t")[0]),
    ).toEqual(["broken", broken]);

    const json = JSON.parse((await run("list", "--json")).stdout);
    expect(json.result.problems.map((p: { folder: string }) => p.folder)).toEqual([broken, gmail, missing]);
    expect(json.result.plugins.find((p: { name: string }) => p.name === "broken").load_error).toContain("version: ");
  });
});
