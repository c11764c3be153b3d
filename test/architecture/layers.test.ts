import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { fileCycles, layerViolations } from "./_layer-rules.ts";

const SRC = resolve(import.meta.dirname, "..", "..", "src");
const FIXTURE = resolve(import.meta.dirname, "fixture", "violating");

describe("the layering of src/", () => {
  test("no part imports what its layer forbids, and no import cycle spans two parts", () => {
    expect(layerViolations(SRC)).toEqual([]);
  });

  test("at most 5 import cycles in all, each inside one part", () => {
    expect(fileCycles(SRC).length).toBeLessThanOrEqual(5);
  });
});

describe("the layering test itself", () => {
  const found = layerViolations(FIXTURE);

  test("fails on a fixture tree, naming each file and import that breaks a rule", () => {
    expect(found).toContainEqual(expect.stringContaining("src/memory/store.ts:2 imports agent/"));
    expect(found).toContainEqual(expect.stringContaining("memory/ never imports agent/"));
  });

  test("reads dynamic and bare side-effect imports, not imports quoted in comments", () => {
    expect(found).toContainEqual(expect.stringContaining("src/providers/wire.ts:3 imports agent/"));
    expect(found).toContainEqual(expect.stringContaining("src/capabilities/tool.ts:2 imports channels/"));
    expect(found.filter((v) => v.includes("providers/wire.ts") && v.includes("channels/"))).toEqual([]);
  });

  test("fails on a cycle between two parts, type-only imports included", () => {
    const cycle = found.find((v) => v.startsWith("import cycle between agent/ and gateway/"));
    expect(cycle).toContain("src/agent/turn.ts:2 → src/gateway/queue.ts");
    expect(cycle).toContain("src/gateway/queue.ts:1 → src/agent/turn.ts");
  });

  test("finds nothing else", () => {
    expect(found).toHaveLength(4);
  });
});
