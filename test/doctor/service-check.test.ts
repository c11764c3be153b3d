import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { serviceCheck } from "../../src/doctor/service-check.ts";
import { installedServiceUnit } from "../../src/doctor/service-unit.ts";
import { planService, serviceTarget } from "../../src/service/target.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

describe("doctor: service unit", () => {
  test("not installed: warn, fermix service install", async () => {
    const h = home();
    const { rows } = await runDoctor(doctorDeps(h, { serviceUnitState: async () => ({ installed: false }) }), [
      serviceCheck,
    ]);
    expect(rows[0]).toMatchObject({ status: "warn", fix: "fermix service install" });
  });

  test("drifted: warn, fermix setup or service install", async () => {
    const h = home();
    const path = `${h.userHome}/.config/systemd/user/fermix.service`;
    const { rows } = await runDoctor(
      doctorDeps(h, { serviceUnitState: async () => ({ installed: true, drifted: true, path }) }),
      [serviceCheck],
    );
    expect(rows[0]).toEqual({
      id: "service",
      title: "service",
      status: "warn",
      detail:
        "the unit at ~/.config/systemd/user/fermix.service no longer matches what this binary writes (PATH or template changed)",
      fix: "fermix setup, or fermix service install",
    });
  });

  test("installed and current: ok", async () => {
    const h = home();
    const path = `${h.userHome}/.config/systemd/user/fermix.service`;
    const { rows } = await runDoctor(
      doctorDeps(h, { serviceUnitState: async () => ({ installed: true, drifted: false, path }) }),
      [serviceCheck],
    );
    expect(rows[0]).toMatchObject({
      status: "ok",
      detail: "installed at ~/.config/systemd/user/fermix.service, up to date",
    });
  });
});

describe("the installed unit, read from disk", () => {
  const binary = () => "/usr/local/bin/fermix";

  test("missing, same, drifted, and unknown drift when running from source", () => {
    const h = home();
    const env = { HOME: h.userHome, FERMIX_HOME: h.home };
    expect(installedServiceUnit(env, "linux", binary)).toEqual({ installed: false });

    const { path } = serviceTarget({ kind: "systemd", scope: "user", env });
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, planService({ scope: "user", env, binary: binary(), platform: "linux" }).content);
    expect(installedServiceUnit(env, "linux", binary)).toEqual({ installed: true, drifted: false, path });

    writeFileSync(path, "[Service]\nExecStart=/old/fermix run\n");
    expect(installedServiceUnit(env, "linux", binary)).toEqual({ installed: true, drifted: true, path });

    const fromSource = () => {
      throw new Error("a service must run a built fermix binary");
    };
    expect(installedServiceUnit(env, "linux", fromSource)).toEqual({ installed: true, drifted: undefined, path });
  });
});
