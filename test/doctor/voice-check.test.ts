import { describe, expect, test } from "bun:test";
import { cloudRailCheck } from "../../src/doctor/cloud-rail-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { voiceCheck } from "../../src/doctor/voice-check.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();

async function rows(config: string) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(config);
  return (await runDoctor(doctorDeps(h), [voiceCheck, cloudRailCheck])).rows;
}

describe("doctor: what this build does not have", () => {
  test("voice and the cloud rail off: ok, off", async () => {
    expect(await rows('[fermix_core.personalization]\ntimezone = "UTC"\n')).toEqual([
      { id: "voice", title: "voice", status: "ok", detail: "off" },
      { id: "cloud-rail", title: "cloud rail", status: "ok", detail: "off" },
    ]);
  });

  test("turned on in config.toml: a warning that says this build has neither", async () => {
    const got = await rows("[fermix_core.realtime]\nenabled = true\n\n[fermix_core.harness]\ncloud_enabled = true\n");
    expect(got).toMatchObject([
      { id: "voice", status: "warn", detail: "enabled in config, but this build has no voice companion bridge" },
      { id: "cloud-rail", status: "warn", detail: "enabled in config, but this build has no cloud coding rail" },
    ]);
    for (const row of got) expect(row.fix).toBeString();
  });

  test("a config.toml that does not load: both rows say they were not checked", async () => {
    const got = await rows("[fermix_core.realtime]\nenabled = 1\n");
    expect(got.map((r) => [r.id, r.status])).toEqual([
      ["voice", "warn"],
      ["cloud-rail", "warn"],
    ]);
  });
});
