import { describe, expect, test } from "bun:test";
import { byCodeUnits } from "../../src/skills/name-order.ts";

describe("the skills' name order", () => {
  test("is by code units: fixed on every machine, lowercase names in alphabetical order", () => {
    expect(["pdf", "csv-tools", "b", "a_b", "a-b", "ab"].sort(byCodeUnits)).toEqual([
      "a-b",
      "a_b",
      "ab",
      "b",
      "csv-tools",
      "pdf",
    ]);
    expect(byCodeUnits("same", "same")).toBe(0);
  });
});
