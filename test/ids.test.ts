import { describe, expect, test } from "bun:test";
import { newId, randomHex } from "../src/ids.ts";

describe("ids", () => {
  test("randomHex gives two lowercase hex digits a byte, leading zeros kept", () => {
    for (let i = 0; i < 200; i++) expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
    expect(randomHex(0)).toBe("");
    // Small bytes are common: some of 200 ids of one byte start with 0.
    const ones = Array.from({ length: 200 }, () => randomHex(1));
    expect(ones.every((h) => h.length === 2)).toBe(true);
    expect(ones.some((h) => h.startsWith("0"))).toBe(true);
  });

  test("newId is its prefix, an underscore and the hex; ids do not repeat", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId("ses")));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^ses_[0-9a-f]{16}$/);
    expect(newId("turn", 6)).toMatch(/^turn_[0-9a-f]{12}$/);
  });
});
