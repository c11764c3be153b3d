import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { pluginsCheck } from "../../src/doctor/plugins-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { writePlugin } from "../fixture/plugin-folder.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();

describe("doctor: plugins with dev_local", () => {
  function setup() {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const root = join(h.userHome, "plugins");
    writePlugin(root, "alpha");
    const gmail = writePlugin(root, "gmail");
    const broken = writePlugin(root, "broken", { version: "one" });
    h.writeConfig(`[fermix_core.plugins]\ndev_local = "${root}"\n`);
    return { h, gmail, broken };
  }

  test("a warn row per problem without --full", async () => {
    const { h, gmail, broken } = setup();
    const { rows } = await runDoctor(doctorDeps(h), [pluginsCheck]);
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      ["plugins.dev_local.broken", "warn"],
      ["plugins.dev_local.gmail", "warn"],
      ["plugins", "ok"],
    ]);
    expect(rows[0]!.detail).toStartWith(`${broken} does not load: version: `);
    expect(rows[1]!.detail).toStartWith(`${gmail} is not loaded: gmail is a bundled plugin`);
    expect(rows[2]!.detail).toBe("0 enabled, no sign-in gone stale; --full checks each one's readiness");
  });

  test("with --full the problems lead and the good folder gets its readiness row; the bad one is not repeated", async () => {
    const { h } = setup();
    const { rows } = await runDoctor(doctorDeps(h, { full: true }), [pluginsCheck]);
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      ["plugins.dev_local.broken", "warn"],
      ["plugins.dev_local.gmail", "warn"],
      ["plugins.alpha", "warn"],
    ]);
    expect(rows[2]!.detail).toBe("alpha 0.1.0 (dev_local): disabled");
  });

  test("a missing root is a warn row naming the path and the key", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const missing = join(h.userHome, "nowhere");
    h.writeConfig(`[fermix_core.plugins]\ndev_local = ["${missing}"]\n`);
    const { rows } = await runDoctor(doctorDeps(h), [pluginsCheck]);
    expect(rows[0]).toMatchObject({ id: "plugins.dev_local.nowhere", status: "warn" });
    expect(rows[0]!.detail).toStartWith(`${missing} ([fermix_core.plugins] dev_local in config.toml) does not exist;`);
  });
});
