import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/** A config that is wrong fails every command that reads it: exit 1, file/section/key named, nothing written. */
describe("a bad config.toml through the binary", () => {
  test.each([
    [
      "malformed TOML",
      "[fermix_core.providers.openai\nprimary = true\n",
      /config\.toml: line 1, column \d+: not valid TOML/,
    ],
    [
      "an unknown key",
      '[fermix_core.providers.openai]\napi_key = "sk-x"\nmodle = "gpt"\n',
      /config\.toml: \[fermix_core\.providers\.openai\] unknown key "modle"/,
    ],
    [
      "a wrong type",
      '[fermix_core.providers.openai]\napi_key = "sk-x"\nprimary = "yes"\n',
      /config\.toml: \[fermix_core\.providers\.openai\] primary: expected true or false, got "yes"/,
    ],
  ])("%s", async (_name, toml, message) => {
    await using h = tempHome();
    const file = h.writeConfig(toml);
    const r = await runFermix(["ask", "ping"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: "sk-env" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain(file);
    expect(readdirSync(h.home)).toEqual(["config.toml"]);
    expect(await Bun.file(file).text()).toBe(toml);

    const run = await runFermix(["run"], { env: { FERMIX_HOME: h.home, HOME: h.userHome } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(readdirSync(h.home)).toEqual(["config.toml"]);
  });
});
