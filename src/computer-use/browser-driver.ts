import type { Page } from "playwright-core";
import type { BrowserSession } from "../browser/browser-session.ts";
import { defineError } from "../error.ts";
import { playwrightKeys } from "./browser-keys.ts";
import type { DesktopDriver, MouseButton } from "./driver-contract.ts";
import { decodePng } from "./png-decode.ts";

/** Browser mode has no browser to drive (the conversation has no browser session wired, or Chromium is missing). */
export const BrowserPageUnavailable = defineError("computer_use_browser_unavailable");

/** Pixels one wheel click scrolls: about what Chromium scrolls for one notch of a real mouse wheel. */
const WHEEL_STEP_PX = 100;

/**
 * `[fermix_core.computer_use] mode = "browser"`: the "screen" is the browser tool's current tab (its viewport, in
 * CSS pixels), opened if there is none, and input goes to that page through playwright rather than to the X
 * display — so no DISPLAY is needed, and nothing outside the page can be touched. Made for each tool call, so the
 * model follows the tab the browser tool last focused. The Chromium belongs to the browser session (idle shutdown,
 * the daemon's stop): closing this driver leaves it running.
 */
/** How long a screenshot waits for a navigation an action started before it tries again. */
const NAVIGATION_WAIT_MS = 10_000;

export async function openBrowserDriver(session: BrowserSession): Promise<DesktopDriver> {
  // context() launches Chromium on first use and pushes its idle shutdown back, as a browser tool call would.
  await session.context();
  const page = (session.active() ?? (await session.open())).page;
  const size =
    page.viewportSize() ??
    // A context launched with viewport: null has no fixed viewport: the window's inner size is the screen then.
    (await page.evaluate(() => ({ width: (globalThis as any).innerWidth, height: (globalThis as any).innerHeight })));
  return browserPageDriver(page, size);
}

export function browserPageDriver(page: Page, size: { width: number; height: number }): DesktopDriver {
  // Playwright's mouse has no "current position" to ask for: the driver keeps it, as X does for the host.
  let pointer = { x: 0, y: 0 };
  return {
    width: size.width,
    height: size.height,
    async capture(region) {
      const shoot = () =>
        page.screenshot({
          type: "png",
          scale: "css",
          ...(region ? { clip: { x: region.x, y: region.y, width: region.width, height: region.height } } : {}),
        });
      try {
        return decodePng(await shoot());
      } catch {
        // An action that submits a form or follows a link starts a navigation, and Chromium refuses to capture a
        // page mid-swap ("Unable to capture screenshot"): wait for the next page to load (bounded), then once more.
        await page.waitForLoadState("load", { timeout: NAVIGATION_WAIT_MS }).catch(() => {});
        return decodePng(await shoot());
      }
    },
    async moveMouse(x, y) {
      await page.mouse.move(x, y);
      pointer = { x, y };
    },
    async click(button: MouseButton, count) {
      await page.mouse.click(pointer.x, pointer.y, { button, clickCount: count });
    },
    async drag(fromX, fromY, toX, toY) {
      await page.mouse.move(fromX, fromY);
      await page.mouse.down();
      // Steps, so that pages listening for mousemove (sliders, drag-and-drop) see the path, not a jump.
      await page.mouse.move(toX, toY, { steps: 10 });
      await page.mouse.up();
      pointer = { x: toX, y: toY };
    },
    async scroll(direction, amount) {
      const step = amount * WHEEL_STEP_PX;
      const dx = direction === "left" ? -step : direction === "right" ? step : 0;
      const dy = direction === "up" ? -step : direction === "down" ? step : 0;
      await page.mouse.move(pointer.x, pointer.y);
      await page.mouse.wheel(dx, dy);
    },
    async typeText(text) {
      await page.keyboard.type(text);
    },
    async pressKeys(combo) {
      await page.keyboard.press(playwrightKeys(combo));
    },
    async windowAt() {
      // The page is the one window there is; its address is what allowed_domains and the address floor judge.
      const title = await page.title().catch(() => "");
      return { wmClass: ["browser"], title, url: page.url() };
    },
    async close() {},
  };
}

/** The browser session of a tool call's context, or the sentence that says why browser mode has none. */
export function sessionOf(browser: (() => BrowserSession) | undefined): BrowserSession {
  if (!browser)
    throw BrowserPageUnavailable(
      'computer use is in browser mode, and this conversation has no browser; set mode = "host" in ' +
        "[fermix_core.computer_use] to use the desktop",
    );
  return browser();
}
