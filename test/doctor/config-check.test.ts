import { describe, expect, test } from "bun:test";
import { configCheck } from "../../src/doctor/config-check.ts";
import { pluginsCheck } from "../../src/doctor/plugins-check.ts";
import { providersCheck } from "../../src/doctor/providers-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

describe("doctor: config", () => {
  test("a valid config.toml is ok, shown under ~", async () => {
    const h = home();
    h.writeConfig('[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n');
    const { rows, ok } = await runDoctor(doctorDeps(h), [configCheck]);
    expect(ok).toBe(true);
    expect(rows).toEqual([{ id: "config", title: "config", status: "ok", detail: "~/h/config.toml is valid" }]);
  });

  test("no config.toml is the zero-config first run, not an error", async () => {
    const { rows } = await runDoctor(doctorDeps(home()), [configCheck]);
    expect(rows[0]).toMatchObject({ status: "ok" });
    expect(rows[0]!.detail).toBe(
      "~/h/config.toml does not exist; settings come from the environment (fermix setup writes one)",
    );
  });

  test("an unknown key fails with the file, section and key; dependent checks are skipped", async () => {
    const h = home();
    h.writeConfig('[fermix_core.providers.openai]\nmodle = "gpt-5.5"\n');
    const report = await runDoctor(doctorDeps(h), [configCheck, providersCheck, pluginsCheck]);
    expect(report.ok).toBe(false);
    expect(report.rows[0]).toEqual({
      id: "config",
      title: "config",
      status: "fail",
      detail: '~/h/config.toml: [fermix_core.providers.openai] unknown key "modle" (remove it, or check its spelling)',
      fix: "edit ~/h/config.toml where the error points, or run fermix setup",
    });
    expect(report.rows.slice(1)).toEqual([
      {
        id: "providers",
        title: "providers",
        status: "warn",
        detail: "not checked: config.toml did not load",
        fix: "fix config.toml first",
      },
      {
        id: "plugins",
        title: "plugins",
        status: "warn",
        detail: "not checked: config.toml did not load",
        fix: "fix config.toml first",
      },
    ]);
  });

  test("TOML that does not parse names the line", async () => {
    const h = home();
    h.writeConfig("[fermix_core\n");
    const { rows } = await runDoctor(doctorDeps(h), [configCheck]);
    expect(rows[0]!.status).toBe("fail");
    expect(rows[0]!.detail).toStartWith("~/h/config.toml: line 1, column");
  });

  test("a routing model paired with the wrong provider fails like a daemon start would", async () => {
    const h = home();
    h.writeConfig(
      '[fermix_core.providers.openai]\nprimary = true\n\n[fermix_core.routing]\nsubagent_model = "claude-opus-4-6"\n',
    );
    const { rows } = await runDoctor(doctorDeps(h), [configCheck]);
    expect(rows[0]!.status).toBe("fail");
    expect(rows[0]!.detail).toContain('[fermix_core.routing] subagent_model: "claude-opus-4-6" is not a openai model');
  });
});
