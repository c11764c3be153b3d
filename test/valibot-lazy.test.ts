import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { parseConfig } from "../src/config/load.ts";
import { builtSchema, lazySchema } from "../src/valibot-lazy.ts";

const FILE = "/home/u/.fermix/config.toml";
const eager = () =>
  v.strictObject({ port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1024, "must be 1024-65535"))) });

describe("lazySchema", () => {
  test("builds its schema on the first validation only, once", () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return eager();
    });
    expect(builds).toBe(0);
    v.safeParse(schema, { port: 4030 });
    v.safeParse(schema, { port: 1 });
    expect(builds).toBe(1);
  });

  test("validates, outputs and reports issues exactly as the schema it builds", () => {
    const schema = lazySchema(eager);
    for (const input of [{ port: 4030 }, { port: 80 }, { port: "x" }, { porte: 1 }, undefined]) {
      const lazily = v.safeParse(schema, input);
      const directly = v.safeParse(eager(), input);
      expect(lazily.success).toBe(directly.success);
      expect(lazily.output).toEqual(directly.output);
      expect(lazily.issues?.map((i) => [i.message, i.path?.map((p) => p.key)])).toEqual(
        directly.issues?.map((i) => [i.message, i.path?.map((p) => p.key)]),
      );
    }
  });

  test("builtSchema hands out the built schema's shape", () => {
    expect(Object.keys(builtSchema(lazySchema(eager)).entries)).toEqual(["port"]);
  });
});

describe("config.toml's sections, built when a file holds them", () => {
  test("a table's bad value is refused with the sentence the eager schema gave", () => {
    expect(() => parseConfig(`[fermix_channels.telegram]\nenabled = "yes"`, FILE)).toThrow(
      `${FILE}: [fermix_channels.telegram] enabled: expected true or false, got "yes"`,
    );
    expect(() => parseConfig(`[fermix_web]\nport = 80`, FILE)).toThrow(
      `${FILE}: [fermix_web] port: expected must be 1024-65535, got 80`,
    );
    expect(() => parseConfig(`[fermix_core.agent]\nprovider = "gemini"`, FILE)).toThrow(
      `${FILE}: [fermix_core.agent] provider: expected one of openai_codex, openai, anthropic, xai, openrouter, mistral, ollama, got "gemini"`,
    );
  });

  test("an unknown key in a nested table is named as before", () => {
    expect(() => parseConfig(`[fermix_core.providers.openai]\nmodle = "x"`, FILE)).toThrow(
      `${FILE}: [fermix_core.providers.openai] unknown key "modle" (remove it, or check its spelling)`,
    );
  });
});
