/**
 * The X11 driver against a real X server (Xvfb) and a real X program (xterm): what the computer_use tool relies
 * on — screenshots in real pixels, clicks and keystrokes that reach the program, WM_CLASS for allowed_apps.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DesktopDriver } from "../../../src/computer-use/driver-contract.ts";
import { openX11Driver } from "../../../src/computer-use/x11/driver.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { hasXvfb, startXterm, startXvfb, waitUntil, XTERM_POINT, type Xvfb } from "../../fixture/xvfb.ts";

const defer = cleanupAfterEach();

async function desktop(): Promise<{ x: Xvfb; driver: DesktopDriver }> {
  const x = await startXvfb();
  defer(() => x.stop());
  const driver = await openX11Driver(x.display);
  defer(() => driver.close());
  return { x, driver };
}

/** An xterm whose shell reads one line and writes it to a file; resolves to a function reading that file. */
async function lineReader(x: Xvfb, driver: DesktopDriver): Promise<() => string | undefined> {
  const out = join(mkdtempSync(join(tmpdir(), "fx-xterm-")), "out.txt");
  await startXterm(x, driver, `read line; printf '%s\\n' "$line" > ${out}.tmp && mv ${out}.tmp ${out}`, {
    env: { LC_ALL: "C.UTF-8", LANG: "C.UTF-8" },
  });
  // No window manager: the keyboard follows the pointer, so the click is what gives xterm the focus.
  await driver.moveMouse(XTERM_POINT.x, XTERM_POINT.y);
  await driver.click("left", 1);
  return () => {
    try {
      return readFileSync(out, "utf8");
    } catch {
      return undefined;
    }
  };
}

async function fileWritten(read: () => string | undefined): Promise<string> {
  await waitUntil(() => read() !== undefined, "the xterm's shell to write its file");
  return read()!;
}

describe.skipIf(!hasXvfb)("X11 driver on Xvfb", () => {
  test("a screenshot is the whole screen in real pixels, and shows the xterm where it is", async () => {
    const { x, driver } = await desktop();
    expect([driver.width, driver.height]).toEqual([1280, 800]);
    const blank = await driver.capture();
    expect([blank.width, blank.height, blank.rgba.length]).toEqual([1280, 800, 1280 * 800 * 4]);
    await startXterm(x, driver, "read line");
    const shot = await driver.capture();
    const at = (img: typeof shot, px: number, py: number) => [
      ...img.rgba.subarray((py * 1280 + px) * 4, (py * 1280 + px) * 4 + 4),
    ];
    // xterm's white background replaces the root's black where its window is; the far corner stays as it was.
    expect(at(shot, XTERM_POINT.x, XTERM_POINT.y)).not.toEqual(at(blank, XTERM_POINT.x, XTERM_POINT.y));
    expect(at(shot, 1270, 790)).toEqual(at(blank, 1270, 790));
    expect(at(shot, XTERM_POINT.x, XTERM_POINT.y)[3]).toBe(255);
  });

  test("a region capture is that rectangle, clamped to the screen", async () => {
    const { driver } = await desktop();
    const part = await driver.capture({ x: 10, y: 20, width: 300, height: 200 });
    expect([part.width, part.height, part.rgba.length]).toEqual([300, 200, 300 * 200 * 4]);
    const edge = await driver.capture({ x: 1200, y: 700, width: 300, height: 300 });
    expect([edge.width, edge.height]).toEqual([80, 100]);
  });

  test("a click and typed text reach the program: hello world + Return is the line it reads", async () => {
    const { x, driver } = await desktop();
    const read = await lineReader(x, driver);
    await driver.typeText("hello world");
    await driver.pressKeys("Return");
    expect(await fileWritten(read)).toBe("hello world\n");
  });

  test("shifted punctuation, capitals and characters the keymap lacks are typed as written", async () => {
    const { x, driver } = await desktop();
    const read = await lineReader(x, driver);
    // é and € are on no key of Xvfb's US map: they go through a remapped spare keycode.
    await driver.typeText('Hi, World! #1 ~ "q" é €\n');
    expect(await fileWritten(read)).toBe('Hi, World! #1 ~ "q" é €\n');
  });

  test("more distinct unmapped characters than spare keycodes: spares are reused and every character arrives", async () => {
    const { x, driver } = await desktop();
    const read = await lineReader(x, driver);
    // 60 CJK ideographs: no key has any of them, and Xvfb's map has 19 spare keycodes, so they are rebound thrice.
    const text = Array.from({ length: 60 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join("");
    await driver.typeText(`${text}\n`);
    expect(await fileWritten(read)).toBe(`${text}\n`);
  });

  test("ctrl combinations: ctrl+u erases the line typed so far", async () => {
    const { x, driver } = await desktop();
    const read = await lineReader(x, driver);
    await driver.typeText("discarded");
    await driver.pressKeys("ctrl+u");
    await driver.typeText("kept");
    await driver.pressKeys("KP_Enter");
    expect(await fileWritten(read)).toBe("kept\n");
  });

  test("a drag selects text and a middle click pastes it: the selection is the line the program reads", async () => {
    const { x, driver } = await desktop();
    const out = join(mkdtempSync(join(tmpdir(), "fx-xterm-")), "out.txt");
    await startXterm(x, driver, `echo copyme; read line; printf '%s\\n' "$line" > ${out}.tmp && mv ${out}.tmp ${out}`);
    // Across the whole first row (xterm trims the blanks after "copyme"); xterm owns PRIMARY on release.
    await driver.drag(1, 6, 470, 6);
    await driver.moveMouse(XTERM_POINT.x, XTERM_POINT.y);
    await driver.click("middle", 1);
    await driver.pressKeys("Return");
    await waitUntil(() => existsSync(out), "the xterm's shell to write its file");
    expect(readFileSync(out, "utf8")).toBe("copyme\n");
  });

  test("the wheel reaches the program: scrolling up shows xterm's scrollback", async () => {
    const { x, driver } = await desktop();
    await startXterm(x, driver, "seq 1 200; read line");
    const region = { x: 0, y: 0, width: 480, height: 300 };
    await driver.moveMouse(XTERM_POINT.x, XTERM_POINT.y);
    // Until seq's output has settled: two captures in a row the same, so a change after the wheel is the wheel's.
    const pixels = async () => Buffer.from((await driver.capture(region)).rgba);
    let before = await pixels();
    await waitUntil(async () => {
      const now = await pixels();
      const settled = now.equals(before);
      before = now;
      return settled;
    }, "xterm's output to settle");
    await driver.scroll("up", 5);
    await waitUntil(async () => !(await pixels()).equals(before), "xterm to redraw its scrolled-back lines");
  });

  test("windowAt names the application under a point (WM_CLASS and title), and nothing over the bare root", async () => {
    const { x, driver } = await desktop();
    expect(await driver.windowAt(XTERM_POINT.x, XTERM_POINT.y)).toBeUndefined();
    await startXterm(x, driver, "read line");
    const win = await driver.windowAt(XTERM_POINT.x, XTERM_POINT.y);
    expect(win?.wmClass).toEqual(["xterm", "XTerm"]);
    expect(win?.title).toBe("sh");
    expect(await driver.windowAt(1270, 790)).toBeUndefined();
    // Without a window manager the focus follows the pointer: the focused window is the one under it.
    await driver.moveMouse(XTERM_POINT.x, XTERM_POINT.y);
    expect((await driver.windowAt())?.wmClass).toEqual(["xterm", "XTerm"]);
  });

  test("a second display in the same process reads titles too (the package's shared atom cache is not trusted)", async () => {
    for (let round = 0; round < 2; round++) {
      const x = await startXvfb();
      const driver = await openX11Driver(x.display);
      try {
        await startXterm(x, driver, "read line");
        expect(await driver.windowAt(XTERM_POINT.x, XTERM_POINT.y)).toEqual({
          wmClass: ["xterm", "XTerm"],
          title: "sh",
        });
      } finally {
        await driver.close();
        await x.stop();
      }
    }
  });

  test("an unknown key name is refused with the spellings that work", async () => {
    const { driver } = await desktop();
    const err = await driver.pressKeys("ctrl+Enterr").catch((e) => e);
    expect(err.code).toBe("computer_use_unknown_key");
    expect(err.message).toContain('"Enterr" is no key name');
    expect(err.message).toContain("ctrl+shift+t");
  });

  test("a display with no server is refused with the reason, quickly", async () => {
    const err = await openX11Driver(":159").catch((e) => e);
    expect(err.code).toBe("computer_use_display_unreachable");
    expect(err.message).toContain("cannot connect to the X display :159");
  });
});
