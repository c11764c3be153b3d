import type { Page } from "playwright-core";
import { type BrowserSession, MAX_TABS, type Tab } from "../../browser/browser-session.ts";
import { refSelector, SNAPSHOT_DEFAULTS, snapshotInPage } from "../../browser/snapshot.ts";
import type { ToolContext, ToolResult } from "../tool.ts";
import { type Args, type FIELDS, KINDS, MAX_WAIT_MS } from "./browser-params.ts";

// The page's globals, for the callbacks that run inside it (the project has no DOM library: see snapshot.ts).
declare const document: any;
declare const HTMLFormElement: any;
declare const HTMLInputElement: any;
declare const HTMLTextAreaElement: any;
declare const HTMLSelectElement: any;

// The facts' bounds: an action 8 s, a navigation 30 s, a wait 5 s (120 s at most), a screenshot's side and size.
const ACTION_MS = 8_000;
const NAVIGATION_MS = 30_000;
const WAIT_MS = 5_000;
const MAX_SHOT_SIDE = 4000;
const MAX_SHOT_BYTES = 8 * 1024 * 1024;
const MAX_FILE_BYTES = 100 * 1024 * 1024;

/** One browser call on the session (browser.ts): loaded on the tool's first call, with the page snapshot code. */
export async function runBrowserAction(
  args: Args,
  session: BrowserSession,
  ctx: ToolContext,
): Promise<ToolResult | string> {
  switch (args.action) {
    case "status":
      return session.running()
        ? `running; tabs: ${describeTabs(session)}`
        : "not running (it starts on the first open, navigate or start)";
    case "start":
      await session.context();
      return `started; tabs: ${describeTabs(session)}`;
    case "stop":
      await session.stop();
      return "stopped";
    case "open": {
      if (!args.url) return fail("open needs url");
      const tab = await session.open();
      return navigate(session, tab, args);
    }
    case "navigate": {
      if (!args.url) return fail("navigate needs url");
      return navigate(session, await tabFor(session, args), args);
    }
    case "tabs":
      await session.context();
      return `tabs (at most ${MAX_TABS}): ${describeTabs(session)}`;
    case "focus": {
      if (!args.target) return fail("focus needs target (a tab id from tabs)");
      const tab = session.focus(args.target);
      if (!tab) return fail(`no tab ${args.target}; tabs: ${describeTabs(session)}`);
      await tab.page.bringToFront();
      return `focused ${tab.id}: ${await tab.page.title()} (${tab.page.url()})`;
    }
    case "close": {
      const id = args.target ?? session.active()?.id;
      if (!id || !(await session.close(id))) return fail(`no tab ${id ?? "open"}`);
      return `closed ${id}; tabs: ${describeTabs(session)}`;
    }
    case "snapshot": {
      const tab = await tabFor(session, args);
      const snap = await tab.page.evaluate(snapshotInPage, {
        ...SNAPSHOT_DEFAULTS,
        depth: args.depth ?? SNAPSHOT_DEFAULTS.depth,
        interactiveOnly: args.interactive === true,
      });
      const head = `${tab.id} ${await tab.page.title()} (${tab.page.url()}) — ${snap.refs} refs`;
      return `${head}\n${snap.text || "(no visible content)"}${snap.truncated ? "\n[snapshot cut: use depth or interactive, or act get on a selector]" : ""}`;
    }
    case "screenshot":
      return screenshot(await tabFor(session, args), args);
    case "act":
      return act(session, await tabFor(session, args), args);
    case "console": {
      const tab = await tabFor(session, args);
      const lines = session.consoleOf(tab.id);
      return lines.length ? lines.join("\n") : `no console messages in ${tab.id}`;
    }
    case "dialog": {
      const tab = await tabFor(session, args);
      const pending = session.dialogOf(tab.id);
      if (!pending) return `no dialog open in ${tab.id}`;
      const accept = args.decision !== "dismiss";
      await session.answerDialog(tab.id, accept, args.text);
      return `${accept ? "accepted" : "dismissed"} the ${pending.type} "${pending.message}"`;
    }
    case "pdf": {
      if (!args.path) return fail("pdf needs path (where in the workspace to write it)");
      const tab = await tabFor(session, args);
      const bytes = await tab.page.pdf();
      return writeFile(ctx, args.path, bytes, "PDF of the page");
    }
    case "download": {
      if (!args.path) return fail("download needs path (where in the workspace to save the file)");
      if (!args.ref && !args.selector) return fail("download needs ref or selector: the link or button that starts it");
      const tab = await tabFor(session, args);
      const target = tab.page.locator(args.ref ? refSelector(args.ref) : args.selector!);
      const [download] = await Promise.all([
        tab.page.waitForEvent("download", { timeout: args.timeout_ms ?? 30_000 }),
        target.click({ timeout: ACTION_MS }),
      ]);
      const file = await download.path();
      const { readFile, stat } = await import("node:fs/promises");
      if ((await stat(file)).size > MAX_FILE_BYTES) {
        await download.delete();
        return fail(`the download is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB: not saved`);
      }
      const bytes = new Uint8Array(await readFile(file));
      await download.delete();
      return writeFile(ctx, args.path, bytes, `download ${download.suggestedFilename()}`);
    }
  }
}

async function tabFor(session: BrowserSession, args: Args): Promise<Tab> {
  await session.context();
  if (args.target) {
    const tab = session.focus(args.target);
    if (!tab) throw new Error(`no tab ${args.target}; tabs: ${describeTabs(session)}`);
    return tab;
  }
  return session.active() ?? (await session.open());
}

async function navigate(session: BrowserSession, tab: Tab, args: Args): Promise<ToolResult | string> {
  const url = args.url!;
  try {
    await tab.page.goto(url, { timeout: args.timeout_ms ?? NAVIGATION_MS, waitUntil: args.wait_until ?? "load" });
  } catch (err) {
    const refused = session.lastRefusal(tab.id);
    if (refused && /ERR_BLOCKED_BY_CLIENT/.test((err as Error).message)) return fail(refused);
    throw err;
  }
  return `${tab.id}: ${await tab.page.title()} (${tab.page.url()}); snapshot to see it`;
}

async function act(session: BrowserSession, tab: Tab, args: Args): Promise<ToolResult | string> {
  const { page } = tab;
  const kind = args.kind;
  if (!kind) return fail(`act needs kind: one of ${KINDS.join(", ")}`);
  const timeout = args.timeout_ms ?? ACTION_MS;
  if (kind === "click_coords") {
    if (args.x === undefined || args.y === undefined) return fail("click_coords needs x and y");
    await page.mouse.click(args.x, args.y);
    return settle(session, tab, `clicked at ${args.x},${args.y}`);
  }
  if (kind === "wait") {
    const ms = Math.min(args.timeout_ms ?? WAIT_MS, MAX_WAIT_MS);
    if (args.ref || args.selector) {
      await page
        .locator(args.ref ? refSelector(args.ref) : args.selector!)
        .first()
        .waitFor({ timeout: ms });
      return "it appeared";
    }
    if (args.text) {
      await page.getByText(args.text).first().waitFor({ timeout: ms });
      return `"${args.text}" appeared`;
    }
    await page.waitForLoadState(args.wait_until ?? "load", { timeout: ms });
    return `the page reached ${args.wait_until ?? "load"}`;
  }
  if (kind === "press" && !args.ref && !args.selector) {
    if (!args.key) return fail("press needs key (such as Enter or Control+A)");
    await page.keyboard.press(args.key);
    return settle(session, tab, `pressed ${args.key}`);
  }
  if (kind === "get" && !args.ref && !args.selector) return get(page, args.field ?? "text");
  if (!args.ref && !args.selector) return fail(`${kind} needs ref (from snapshot) or selector`);
  const target = page.locator(args.ref ? refSelector(args.ref) : args.selector!).first();
  const name = args.ref ?? args.selector!;
  switch (kind) {
    case "click":
      await target.click({ timeout });
      return settle(session, tab, `clicked ${name}`);
    case "hover":
      await target.hover({ timeout });
      return `hovering ${name}`;
    case "fill":
      if (args.text === undefined) return fail("fill needs text");
      await target.fill(args.text, { timeout });
      return `filled ${name}`;
    case "type":
      if (args.text === undefined) return fail("type needs text");
      await target.pressSequentially(args.text, { timeout });
      return `typed into ${name}`;
    case "press":
      if (!args.key) return fail("press needs key (such as Enter)");
      await target.press(args.key, { timeout });
      return settle(session, tab, `pressed ${args.key} on ${name}`);
    case "submit": {
      // The element's form (or the form itself), submitted as a person would: its submit button is clicked, so the
      // page's handlers run and the navigation is waited for like any click; a form without one is submitted.
      const isForm = await target.evaluate((el: any) => el.tagName === "FORM");
      const form = isForm ? target : target.locator("xpath=ancestor::form[1]");
      if ((await form.count()) === 0) return fail(`${name} is not in a form`);
      const button = form.locator('button[type="submit"], input[type="submit"], button:not([type])').first();
      if ((await button.count()) > 0) {
        await button.click({ timeout });
      } else {
        const navigated = page.waitForEvent("framenavigated", { timeout: 2_000 }).catch(() => undefined);
        await form.evaluate((el: any) => el.requestSubmit());
        await navigated;
        await page.waitForLoadState("load", { timeout: NAVIGATION_MS }).catch(() => {});
      }
      return settle(session, tab, `submitted the form of ${name}`);
    }
    case "get":
      return getOf(target, args.field ?? "text");
  }
  return fail(`unknown kind ${kind}`);
}

/** After an action that may open a dialog or navigate: what the page now is, so the model does not have to ask. */
async function settle(session: BrowserSession, tab: Tab, done: string): Promise<string> {
  const dialog = session.dialogOf(tab.id);
  if (dialog) return `${done}; a ${dialog.type} is open: "${dialog.message}" — answer it with action dialog`;
  return `${done}; now at ${await tab.page.title()} (${tab.page.url()})`;
}

async function get(page: Page, field: (typeof FIELDS)[number]): Promise<string> {
  switch (field) {
    case "url":
      return page.url();
    case "title":
      return page.title();
    case "html":
      return page.content();
    case "ready_state":
      return page.evaluate(() => document.readyState);
    default:
      return getOf(page.locator("body"), field);
  }
}

async function getOf(target: ReturnType<Page["locator"]>, field: (typeof FIELDS)[number]): Promise<string> {
  switch (field) {
    case "html":
      return target.evaluate((el: any) => el.outerHTML);
    case "count":
      return String(await target.count());
    case "rect": {
      const box = await target.boundingBox({ timeout: ACTION_MS });
      return box ? JSON.stringify(box) : "not visible";
    }
    case "url":
      return (await target.getAttribute("href", { timeout: ACTION_MS })) ?? "no href";
    case "title":
      return (await target.getAttribute("title", { timeout: ACTION_MS })) ?? "no title";
    case "ready_state":
      return target.evaluate(() => document.readyState);
    default: {
      const value = await target.evaluate((el: any) =>
        el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement
          ? el.value
          : // biome-ignore lint/performance/useDomNodeTextContent: the text as shown is what "get" must report, not hidden template text
            el.innerText,
      );
      return value || "(empty)";
    }
  }
}

async function screenshot(tab: Tab, args: Args): Promise<ToolResult> {
  const type = args.format ?? "png";
  const size = await tab.page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  }));
  // A full page taller than the bound is cut to it rather than sent as a picture no model reads.
  const full = args.full_page === true && size.height <= MAX_SHOT_SIDE && size.width <= MAX_SHOT_SIDE;
  const bytes = await tab.page.screenshot({
    type,
    fullPage: full,
    quality: type === "jpeg" ? (args.quality ?? 80) : undefined,
    timeout: ACTION_MS,
  });
  if (bytes.length > MAX_SHOT_BYTES)
    return fail(`the screenshot is over ${MAX_SHOT_BYTES / 1024 / 1024} MB; try format jpeg`);
  const note = args.full_page && !full ? " (the page is too tall for one picture: the visible part only)" : "";
  return {
    content: `screenshot of ${tab.id} (${tab.page.url()})${note}`,
    images: [{ type: "image", mime: `image/${type}`, data: Buffer.from(bytes).toString("base64") }],
  };
}

async function writeFile(
  ctx: ToolContext,
  path: string,
  bytes: Uint8Array,
  what: string,
): Promise<ToolResult | string> {
  const written = await ctx.sandbox.writeFile(path, bytes, ctx.caller);
  if (!written.ok) return fail(written.reason);
  return `${what} saved to ${written.path} (${bytes.length} bytes)`;
}

function describeTabs(session: BrowserSession): string {
  const active = session.active()?.id;
  const tabs = session.tabs().map((t) => `${t.id}${t.id === active ? "*" : ""} ${t.page.url()}`);
  return tabs.length ? tabs.join(", ") : "none";
}

function fail(content: string): ToolResult {
  return { isError: true, content };
}
