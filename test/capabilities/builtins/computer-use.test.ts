import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createComputerUseTool } from "../../../src/capabilities/builtins/computer-use.ts";
import type { ToolContext, ToolResult } from "../../../src/capabilities/tool.ts";
import { createActionApprovals } from "../../../src/computer-use/action-approvals.ts";
import type { WindowInfo } from "../../../src/computer-use/driver-contract.ts";
import { createComputerUseSessions } from "../../../src/computer-use/session.ts";
import { type ComputerUseSettings, computerUseSettings } from "../../../src/computer-use/settings.ts";
import type { Config } from "../../../src/config/schema.ts";
import { handleSlash } from "../../../src/gateway/slash.ts";
import type { SandboxMode } from "../../../src/sandbox/types.ts";
import { fakeDesktop, pngSize } from "../../fake/desktop-driver.ts";
import { fakeSlashContext } from "../../fixture/slash-context.ts";

/*
 * The computer_use tool over a fake desktop (a 1600×1000 screen the model sees at 1280×800): the grid rule, the
 * sandbox posture, allowed_apps, max_actions, the owner's approval of consequential actions and /pause. The real
 * X display end to end is test/computer-use/computer-use-daemon.test.ts.
 */

const CONV = { channel: "telegram", chat: "100" };
const XTERM: WindowInfo = { wmClass: ["xterm", "XTerm"], title: "sh" };
const EDITOR: WindowInfo = { wmClass: ["gedit", "Gedit"], title: "notes.txt" };
const PAY: WindowInfo = { wmClass: ["firefox", "Firefox"], title: "Confirm and pay — Shop" };

type Setup = {
  settings?: Partial<ComputerUseSettings>;
  mode?: SandboxMode;
  focused?: WindowInfo;
  capture?: boolean;
};

function setup(opts: Setup = {}) {
  const desk = fakeDesktop({
    windows: [
      { x: 0, y: 0, width: 800, height: 500, info: EDITOR },
      { x: 800, y: 0, width: 800, height: 500, info: XTERM },
      { x: 0, y: 500, width: 1600, height: 500, info: PAY },
    ],
    focused: opts.focused ?? EDITOR,
  });
  const sessions = createComputerUseSessions();
  const approvals = createActionApprovals();
  const base = computerUseSettings({ fermix_core: { computer_use: { enabled: true } } } as Config);
  const settings = { ...base, confirmConsequential: false, ...opts.settings };
  const tool = createComputerUseTool({ driver: desk.driver, settings, sessions, approvals, sleep: async () => {} });
  const notices: string[] = [];
  const controller = new AbortController();
  const ctx = {
    caller: { trust: "operator", local: false, attended: true },
    conversation: CONV,
    signal: controller.signal,
    now: Date.now,
    notify: (text: string) => notices.push(text),
    sandbox: { mode: opts.mode ?? "open" },
    trace: { traces: { write() {}, capture: opts.capture === true }, sessionId: "main-test" },
  } as unknown as ToolContext;
  const call = async (args: Record<string, unknown>): Promise<ToolResult> => {
    const result = await tool.execute(v.parse(tool.parameters, args), ctx);
    return typeof result === "string" ? { content: result } : result;
  };
  const slash = (text: string) =>
    handleSlash(text, fakeSlashContext({ conversation: CONV, computerUse: () => ({ sessions, approvals }) }).ctx);
  return { ...desk, tool, sessions, approvals, notices, call, slash, controller };
}

/** Resolves once `condition` holds, checked after each turn of the event loop (no timer decides anything). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error("condition never held");
}

describe("computer_use: pictures and the grid", () => {
  test("a screenshot is a PNG at the configured size, scaled from the real screen", async () => {
    const { call } = setup();
    const shot = await call({ action: "screenshot" });
    expect(shot.isError).toBeUndefined();
    expect(shot.images).toHaveLength(1);
    expect(pngSize(shot.images![0]!.data)).toEqual({ width: 1280, height: 800 });
    expect(shot.retainImages).toBe(3);
    expect(shot.trace).toEqual({ action: "screenshot" });
  });

  test("a click's coordinates are read on the screenshot's grid and converted to the real screen", async () => {
    const { call, inputs } = setup();
    const done = await call({ action: "left_click", coordinate: [640, 400] });
    expect(done.isError).toBeUndefined();
    expect(inputs()).toEqual([
      { op: "moveMouse", args: [800, 500] },
      { op: "click", args: ["left", 1] },
    ]);
    expect(done.trace).toEqual({ action: "left_click", x: 800, y: 500 });
    // screenshot_after: the screen as it is after the click.
    expect(pngSize(done.images![0]!.data)).toEqual({ width: 1280, height: 800 });
  });

  test("after a zoom, a click that fits both grids is refused with the conversion error; a screenshot or grid ends it", async () => {
    const { call, inputs } = setup();
    const zoomed = await call({ action: "zoom", region: [0, 0, 320, 200] });
    expect(zoomed.isError).toBeUndefined();
    expect(pngSize(zoomed.images![0]!.data)).toEqual({ width: 1280, height: 800 });
    const ambiguous = await call({ action: "left_click", coordinate: [100, 100] });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.content).toContain("Coordinates are read on the full-screen grid: take a screenshot first");
    expect(ambiguous.content).toContain('grid: "screen"');
    expect(inputs()).toEqual([]);
    // Said explicitly, each grid is exact: the crop's (640, 400) is the middle of [0, 0, 320, 200] → real (200, 125).
    await call({ action: "mouse_move", coordinate: [640, 400], grid: "zoom" });
    await call({ action: "mouse_move", coordinate: [640, 400], grid: "screen" });
    expect(inputs()).toEqual([
      { op: "moveMouse", args: [200, 125] },
      { op: "moveMouse", args: [800, 500] },
    ]);
    await call({ action: "screenshot" });
    expect((await call({ action: "mouse_move", coordinate: [10, 10] })).isError).toBeUndefined();
    // grid "zoom" with no zoom on screen is refused rather than guessed.
    const noZoom = await call({ action: "mouse_move", coordinate: [10, 10], grid: "zoom" });
    expect(noZoom.isError).toBe(true);
    expect(noZoom.content).toContain("the last picture was not one");
  });

  test("a coordinate off the grid names the grid's range", async () => {
    const { call } = setup();
    const off = await call({ action: "left_click", coordinate: [1280, 10] });
    expect(off.isError).toBe(true);
    expect(off.content).toContain("outside the screen grid: x 0–1279, y 0–799");
  });
});

describe("computer_use: the owner's rules", () => {
  test('[sandbox] mode "strict": every input refused with how to allow it; screenshot and zoom still work', async () => {
    const { call, inputs } = setup({ mode: "strict" });
    for (const args of [
      { action: "left_click", coordinate: [10, 10] },
      { action: "type", text: "hello" },
      { action: "key", text: "Return" },
      { action: "scroll", coordinate: [10, 10], scroll_direction: "down" },
    ]) {
      const refused = await call(args);
      expect(refused.isError).toBe(true);
      expect(refused.content).toStartWith('input is off while [sandbox] mode is "strict"; set mode = "standard"');
    }
    expect(inputs()).toEqual([]);
    expect((await call({ action: "screenshot" })).images).toHaveLength(1);
    expect((await call({ action: "zoom", region: [0, 0, 100, 100] })).images).toHaveLength(1);
  });

  test('[sandbox] mode "standard" with allowed_apps: input only into those apps', async () => {
    const { call, inputs } = setup({ mode: "standard", settings: { allowedApps: ["xterm"] } });
    const refused = await call({ action: "left_click", coordinate: [100, 100] });
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain('"notes.txt" (Gedit) is not in allowed_apps (xterm)');
    expect((await call({ action: "left_click", coordinate: [1000, 100] })).isError).toBeUndefined();
    expect(inputs()).toEqual([
      { op: "moveMouse", args: [1250, 125] },
      { op: "click", args: ["left", 1] },
    ]);
  });

  test("max_actions stops a runaway loop, screenshots counted", async () => {
    const { call, inputs } = setup({ settings: { maxActions: 5 } });
    const results: ToolResult[] = [];
    for (let i = 0; i < 8; i++) results.push(await call({ action: "mouse_move", coordinate: [i, i] }));
    expect(results.slice(0, 5).every((r) => !r.isError)).toBe(true);
    for (const r of results.slice(5)) {
      expect(r.isError).toBe(true);
      expect(r.content).toStartWith("This turn reached max_actions (5 computer_use actions)");
    }
    expect(inputs()).toHaveLength(5);
  });

  test('mode = "browser": input is judged by the page\'s address (allowed_domains), not allowed_apps', async () => {
    const page = (url: string): WindowInfo => ({ wmClass: ["browser"], title: "Shop", url });
    const run = async (url: string, mode: SandboxMode) => {
      const desk = fakeDesktop({ windows: [{ x: 0, y: 0, width: 1600, height: 1000, info: page(url) }] });
      const base = computerUseSettings({ fermix_core: { computer_use: { enabled: true } } } as Config);
      const settings = {
        ...base,
        mode: "browser" as const,
        confirmConsequential: false,
        allowedApps: ["xterm"],
        allowedDomains: ["example.org"],
      };
      const tool = createComputerUseTool({
        driver: async () => desk.driver,
        settings,
        // Public names resolve to a public address (no DNS in tests).
        resolve: async () => ["93.184.215.14"],
        sessions: createComputerUseSessions(),
        approvals: createActionApprovals(),
      });
      const ctx = {
        conversation: CONV,
        signal: new AbortController().signal,
        notify() {},
        sandbox: { mode },
        config: {},
      } as unknown as ToolContext;
      const args = v.parse(tool.parameters, { action: "left_click", coordinate: [10, 10] });
      return {
        result: (await tool.execute(args, ctx)) as ToolResult,
        clicks: desk.calls.filter((c) => c.op === "click"),
      };
    };
    const sub = await run("https://shop.example.org/cart", "standard");
    expect(sub.result.content).toStartWith("Done");
    expect(sub.clicks).toHaveLength(1);
    const other = await run("https://example.com/", "standard");
    expect(other.result.content).toStartWith(
      "the page's domain example.com is not in allowed_domains (example.org); add it to [fermix_core.computer_use] allowed_domains",
    );
    expect(other.clicks).toHaveLength(0);
    // open: anywhere the browser may go; but never a page the address floor refuses.
    expect((await run("https://example.com/", "open")).result.isError).toBeUndefined();
    const floor = await run("http://10.1.2.3/admin", "open");
    expect(floor.result.isError).toBe(true);
    expect(floor.result.content).toContain("refused http://10.1.2.3/admin");
  });

  test("the typed text stays out of the trace unless content capture is on", async () => {
    const off = await setup().call({ action: "type", text: "secret words" });
    expect(off.trace).toEqual({ action: "type", text_chars: 12 });
    const on = await setup({ capture: true }).call({ action: "type", text: "secret words" });
    expect(on.trace).toEqual({ action: "type", text: "secret words" });
  });
});

describe("computer_use: consequential actions wait for the owner", () => {
  const asking = { confirmConsequential: true, approvalTimeoutMs: 60_000 };

  test("typing into a terminal asks first; /confirm TOKEN lets it through", async () => {
    const t = setup({ settings: asking, focused: XTERM });
    const pending = t.call({ action: "type", text: "rm -rf build" });
    await until(() => t.notices.length > 0);
    expect(t.notices[0]).toStartWith(
      'fermix asks to use the computer: type "rm -rf build" into "sh" (XTerm), a terminal',
    );
    expect(t.inputs()).toEqual([]);
    const token = /\/confirm ([A-Z0-9]+)/.exec(t.notices[0]!)![1]!;
    expect(await t.slash(`/confirm ${token}`)).toStartWith('Confirmed: type "rm -rf build"');
    const done = await pending;
    expect(done.isError).toBeUndefined();
    expect(t.inputs()).toEqual([{ op: "typeText", args: ["rm -rf build"] }]);
  });

  test("/deny TOKEN refuses it, and the token is used up", async () => {
    const t = setup({ settings: asking });
    const pending = t.call({ action: "left_click", coordinate: [640, 700] });
    await until(() => t.notices.length > 0);
    expect(t.notices[0]).toContain('into "Confirm and pay — Shop" (Firefox), a window titled');
    const token = /\/deny ([A-Z0-9]+)/.exec(t.notices[0]!)![1]!;
    expect(await t.slash(`/deny ${token}`)).toStartWith("Denied: left click");
    const refused = await pending;
    expect(refused.isError).toBe(true);
    expect(refused.content).toStartWith("The owner denied this action");
    expect(t.inputs()).toEqual([]);
    // Used up: the same token is now nobody's (it falls through to the directory approvals, which do not know it).
    expect(await t.slash(`/confirm ${token}`)).toBe("Not confirmed: no pending request has that token.");
  });

  test("no answer within approval_timeout_ms refuses it", async () => {
    const t = setup({ settings: { confirmConsequential: true, approvalTimeoutMs: 30 }, focused: XTERM });
    const refused = await t.call({ action: "key", text: "Return" });
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain("did not answer");
    expect(refused.trace).toMatchObject({ approval: "timed_out" });
    expect(t.inputs()).toEqual([]);
  });

  test("a pointer move or a key that is not Return is not asked about", async () => {
    const t = setup({ settings: asking, focused: XTERM });
    await t.call({ action: "mouse_move", coordinate: [1000, 100] });
    await t.call({ action: "key", text: "ctrl+l" });
    expect(t.notices).toEqual([]);
    expect(t.inputs()).toHaveLength(2);
  });
});

describe("/pause and /resume", () => {
  test("/pause holds the next action until /resume", async () => {
    const t = setup();
    expect(await t.slash("/pause")).toStartWith("Paused: the next computer-use action here waits");
    const held = t.call({ action: "left_click", coordinate: [640, 400] });
    await until(() => t.sessions.holding(CONV));
    expect(t.inputs()).toEqual([]);
    expect(await t.slash("/pause")).toStartWith("Computer use is already paused here");
    expect(await t.slash("/resume")).toStartWith("Resumed");
    expect((await held).isError).toBeUndefined();
    expect(t.inputs().map((c) => c.op)).toEqual(["moveMouse", "click"]);
    expect(await t.slash("/resume")).toBe("Computer use is not paused here.");
  });

  test("/stop (the turn's signal) ends a held action without running it", async () => {
    const t = setup();
    await t.slash("/pause");
    const held = t.call({ action: "type", text: "x" });
    await until(() => t.sessions.holding(CONV));
    t.controller.abort(new Error("stopped by the owner with /stop"));
    await expect(held).rejects.toThrow("stopped by the owner");
    expect(t.inputs()).toEqual([]);
  });

  test("without computer use running, they say so", async () => {
    const { ctx } = fakeSlashContext();
    expect(await handleSlash("/pause", ctx)).toBe(
      "Computer use is not enabled in this fermix, so there is nothing to pause.",
    );
  });
});
