import { describe, expect, test } from "bun:test";
import x11 from "x11";
import { alternateKeysym, indexKeysyms, keysymForChar, keysymForName } from "../../../src/computer-use/x11/keysyms.ts";

const names = indexKeysyms(x11.keySyms);

describe("key names and characters → X keysyms", () => {
  test("xdotool spellings: exact keysym names, case-folded ones, and the common aliases", () => {
    expect(keysymForName("Return", names)).toBe(0xff0d);
    expect(keysymForName("return", names)).toBe(0xff0d);
    expect(keysymForName("Enter", names)).toBe(0xff0d);
    expect(keysymForName("ctrl", names)).toBe(0xffe3); // Control_L
    expect(keysymForName("super", names)).toBe(0xffeb); // Super_L
    expect(keysymForName("Page_Down", names)).toBe(0xff56);
    expect(keysymForName("pgup", names)).toBe(0xff55);
    expect(keysymForName("F12", names)).toBe(0xffc9);
    expect(keysymForName("BackSpace", names)).toBe(0xff08);
    expect(keysymForName("space", names)).toBe(0x20);
  });

  test("a single letter keeps its case, as in xdotool (L is the capital)", () => {
    expect(keysymForName("l", names)).toBe(0x6c);
    expect(keysymForName("L", names)).toBe(0x4c);
  });

  test("typed characters: Latin-1 is its own keysym, newline is Return, others legacy or Unicode", () => {
    expect(keysymForChar("a", names)).toBe(0x61);
    expect(keysymForChar("é", names)).toBe(0xe9);
    expect(keysymForChar("\n", names)).toBe(0xff0d);
    expect(keysymForChar("\t", names)).toBe(0xff09);
    expect(keysymForChar("€", names)).toBe(0x20ac); // EuroSign, as keyboard maps list it
    expect(keysymForChar("🙂", names)).toBe(0x01000000 + 0x1f642);
    expect(alternateKeysym("€", 0x20ac)).toBe(0x010020ac);
    expect(alternateKeysym("a", 0x61)).toBeUndefined();
  });

  test("an unknown name is a typed error naming it and the spellings that work", () => {
    expect(() => keysymForName("Entr", names)).toThrow('"Entr" is no key name');
    expect(() => keysymForName("", names)).toThrow("empty key name");
  });
});
