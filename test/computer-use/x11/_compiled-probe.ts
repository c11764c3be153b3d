/**
 * Compiled with `bun build --compile` by compiled.test.ts: proves the x11 package works inside a single-file
 * executable (no node_modules beside it), as in the fermix binary. argv: DISPLAY, text to type at (x, y).
 */
import { openX11Driver } from "../../../src/computer-use/x11/driver.ts";

const [display, text, x, y] = process.argv.slice(2);
const started = performance.now();
const driver = await openX11Driver(display!);
const opened = performance.now();
const shot = await driver.capture();
const captured = performance.now();
let lit = 0;
for (let i = 0; i < shot.rgba.length; i += 4) if (shot.rgba[i]! + shot.rgba[i + 1]! + shot.rgba[i + 2]! > 0) lit++;
// Before typing: the line ends the xterm's shell, and its window with it.
const window = await driver.windowAt(Number(x), Number(y));
const beforeTyping = performance.now();
await driver.moveMouse(Number(x), Number(y));
await driver.click("left", 1);
await driver.typeText(text!);
const typed = performance.now();
await driver.close();
console.log(
  JSON.stringify({
    width: shot.width,
    height: shot.height,
    lit,
    wmClass: window?.wmClass,
    ms: { open: opened - started, capture: captured - opened, typePerChar: (typed - beforeTyping) / [...text!].length },
  }),
);
process.exit(0);
