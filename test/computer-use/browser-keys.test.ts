import { expect, test } from "bun:test";
import { playwrightKeys } from "../../src/computer-use/browser-keys.ts";

test("xdotool spellings become playwright's; playwright's own pass through", () => {
  expect(playwrightKeys("ctrl+l")).toBe("Control+l");
  expect(playwrightKeys("Return")).toBe("Enter");
  expect(playwrightKeys("BackSpace")).toBe("Backspace");
  expect(playwrightKeys("Page_Up")).toBe("PageUp");
  expect(playwrightKeys("Page_Down")).toBe("PageDown");
  expect(playwrightKeys("ctrl+shift+t")).toBe("Control+Shift+t");
  expect(playwrightKeys("super")).toBe("Meta");
  expect(playwrightKeys("alt+Left")).toBe("Alt+ArrowLeft");
  expect(playwrightKeys("ctrl+plus")).toBe("Control++");
  expect(playwrightKeys("space")).toBe("Space");
  expect(playwrightKeys("f5")).toBe("F5");
  expect(playwrightKeys("ArrowDown")).toBe("ArrowDown");
  expect(playwrightKeys("Escape")).toBe("Escape");
});

test("an unknown or empty key name is refused with the spellings that work", () => {
  expect(() => playwrightKeys("ctrl+Hyperdrive")).toThrow('"Hyperdrive" is no key name');
  expect(() => playwrightKeys("ctrl++")).toThrow("an empty key name");
});
