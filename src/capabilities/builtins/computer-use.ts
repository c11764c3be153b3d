import * as v from "valibot";
import { createUrlGuard } from "../../browser/url-guard.ts";
import type { ActionApprovals } from "../../computer-use/action-approvals.ts";
import type { DesktopDriver, RawImage, WindowInfo } from "../../computer-use/driver-contract.ts";
import { pageRefusal } from "../../computer-use/page-target.ts";
import { encodePng } from "../../computer-use/png.ts";
import { resize } from "../../computer-use/scale.ts";
import type { ComputerUseSessions } from "../../computer-use/session.ts";
import type { ComputerUseSettings } from "../../computer-use/settings.ts";
import { isFermixError } from "../../error.ts";
import type { Resolver } from "../../net/types.ts";
import type { ImagePart } from "../../providers/types.ts";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";
import { type LastImage, regionToScreen, type ScreenRegion, toScreen, zoomSize } from "./_computer-grid.ts";
import { appAllowed, consequentialReason, describeWindow } from "./_consequential.ts";

const ACTIONS = [
  "screenshot",
  "left_click",
  "right_click",
  "middle_click",
  "double_click",
  "mouse_move",
  "left_click_drag",
  "scroll",
  "type",
  "key",
  "wait",
  "zoom",
] as const;
type Action = (typeof ACTIONS)[number];
const POINTER: ReadonlySet<Action> = new Set([
  "left_click",
  "right_click",
  "middle_click",
  "double_click",
  "mouse_move",
  "left_click_drag",
  "scroll",
]);
const MAX_WAIT_S = 10;

const Point = v.tuple([v.number(), v.number()]);
const Parameters = v.object({
  action: v.picklist(ACTIONS, `one of ${ACTIONS.join(", ")}`),
  coordinate: v.optional(Point),
  /** left_click_drag's start; its end is `coordinate`. */
  start_coordinate: v.optional(Point),
  /** Which picture `coordinate` is read on, after a zoom (see _computer-grid.ts). */
  grid: v.optional(v.picklist(["screen", "zoom"], '"screen" or "zoom"')),
  text: v.optional(v.string()),
  scroll_direction: v.optional(v.picklist(["up", "down", "left", "right"], "up, down, left or right")),
  scroll_amount: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(30)), 3),
  region: v.optional(v.tuple([v.number(), v.number(), v.number(), v.number()])),
  duration: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(MAX_WAIT_S)), 1),
});
type Args = v.InferOutput<typeof Parameters>;

export type ComputerUseToolDeps = {
  /** The X display (host mode), or how a call reaches the browser tool's current page (browser mode). */
  driver: DesktopDriver | ((ctx: ToolContext) => Promise<DesktopDriver>);
  settings: ComputerUseSettings;
  sessions: ComputerUseSessions;
  approvals: ActionApprovals;
  sleep?: (ms: number) => Promise<void>;
  /** DNS for browser mode's address floor (tests hand in fixed answers); absent: the system's. */
  resolve?: Resolver;
};

/**
 * The computer_use tool (spec: self-knowledge.md, "Computer use"), made for one turn: the last picture it showed
 * (the grid the model's coordinates are read on) is this turn's. Offered only to an attended operator turn while
 * [fermix_core.computer_use] is enabled and the display is ready (computer-use/computer-use-subsystem.ts).
 */
export function createComputerUseTool(deps: ComputerUseToolDeps) {
  const { settings } = deps;
  const browserMode = settings.mode === "browser";
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // The driver of the call running now: the display, or (browser mode) the page the browser tool has in front,
  // set before the call's first look or input (a turn runs this tool's calls one at a time: it is not read-only).
  let driver: DesktopDriver | undefined = typeof deps.driver === "function" ? undefined : deps.driver;
  const screen = () => ({
    gridWidth: settings.width,
    gridHeight: settings.height,
    realWidth: driver!.width,
    realHeight: driver!.height,
  });
  let last: LastImage | undefined;

  const shot = async (): Promise<ImagePart> => {
    const raw = await driver!.capture();
    last = { kind: "screen", width: settings.width, height: settings.height };
    return picture(resize(raw, settings.width, settings.height));
  };
  const zoom = async (region: ScreenRegion): Promise<{ image: ImagePart; size: { width: number; height: number } }> => {
    const raw = await driver!.capture(region);
    const size = zoomSize(region, settings.width, settings.height);
    const image = picture(resize(raw, size.width, size.height));
    last = { kind: "zoom", ...size, region };
    return { image, size };
  };

  return defineTool({
    name: "computer_use",
    description:
      "See the screen and work the mouse and keyboard: screenshot, click, type, key, scroll, drag, zoom, wait.",
    policy: "exec",
    readOnly: false,
    attendedOperatorOnly: true,
    // A paused task or an approval may wait for the owner far longer than a tool's usual two minutes.
    timeoutMs: 24 * 3600_000,
    parameters: Parameters,
    help:
      (browserMode
        ? "Browser mode: the screen is the browser tool's current tab (opened when there is none), and input " +
          "goes to that page only. "
        : "") +
      `Coordinates are [x, y] on the screenshot's ${settings.width}×${settings.height} grid, converted to the real ` +
      "screen. After a zoom (region [x1, y1, x2, y2] on the screen grid) the picture is the crop: a point inside " +
      'it is ambiguous and refused unless you pass grid: "screen" or grid: "zoom"; a new screenshot resets this. ' +
      "type takes text; key takes a combination in xdotool spelling (ctrl+l, Return). " +
      `At most ${settings.maxActions} actions a turn. The sandbox posture decides input: strict allows screenshot, ` +
      "zoom and wait only. Typing into a terminal or clicking send/pay/delete-like windows asks the owner first. " +
      "The owner can /pause (the next action waits) and /resume.",
    async execute(args, ctx): Promise<ToolResult> {
      try {
        return await run(args, ctx);
      } catch (err) {
        // A refusal or a conversion error is the model's to read and correct; anything else is a failure.
        if (isFermixError(err)) return { isError: true, content: err.message, trace: { action: args.action } };
        throw err;
      }
    },
  });

  async function run(args: Args, ctx: ToolContext): Promise<ToolResult> {
    const action = args.action;
    const count = deps.sessions.countAction(ctx.signal);
    if (count > settings.maxActions) {
      return refuse(
        action,
        `This turn reached max_actions (${settings.maxActions} computer_use actions). Stop here and tell the owner ` +
          "what is done and what is left; they can ask you to go on.",
      );
    }
    // /pause holds the next action, not the turn: it waits here until /resume (or /stop cancels the turn).
    await deps.sessions.whenRunnable(ctx.conversation, ctx.signal);
    if (typeof deps.driver === "function") driver = await deps.driver(ctx);

    if (action === "screenshot") return withImage(action, "The screen now:", await shot(), {});
    if (action === "zoom") {
      if (!args.region) return refuse(action, "zoom needs region: [x1, y1, x2, y2] on the screen grid");
      const region = regionToScreen(args.region, screen());
      const shown = await zoom(region);
      return withImage(
        action,
        `A ${shown.size.width}×${shown.size.height} zoom of [${args.region.join(", ")}]. Coordinates stay on the ` +
          'full-screen grid: take a screenshot before pointing, or pass grid: "zoom" to point on this crop.',
        shown.image,
        { region: [region.x, region.y, region.width, region.height] },
      );
    }
    if (action === "wait") {
      await sleep(args.duration * 1000);
      return withImage(action, `Waited ${args.duration} s. The screen now:`, await shot(), {});
    }
    // Looking and waiting (above) change nothing on the screen: every sandbox posture allows them; input is next.
    if (ctx.sandbox.mode === "strict") {
      return refuse(
        action,
        'input is off while [sandbox] mode is "strict"; set mode = "standard" (or "open") in config.toml\'s ' +
          "[sandbox] to allow it. screenshot, zoom and wait still work.",
      );
    }
    return input(action, args, ctx);
  }

  async function input(action: Action, args: Args, ctx: ToolContext): Promise<ToolResult> {
    const needs = POINTER.has(action) ? "coordinate" : "text";
    const given = POINTER.has(action) ? args.coordinate : args.text;
    if (given === undefined || given === "")
      return refuse(action, `${action} needs ${needs}${action === "key" ? " (a key combination, e.g. ctrl+l)" : ""}`);
    if (action === "scroll" && !args.scroll_direction) return refuse(action, "scroll needs scroll_direction");
    if (action === "left_click_drag" && !args.start_coordinate)
      return refuse(action, "left_click_drag needs start_coordinate (where to press) and coordinate (where to let go)");
    const at = args.coordinate ? toScreen(args.coordinate, args.grid, last, screen()) : undefined;
    const from = args.start_coordinate ? toScreen(args.start_coordinate, args.grid, last, screen()) : undefined;
    const target: WindowInfo | undefined = await driver!.windowAt(from?.x ?? at?.x, from?.y ?? at?.y);
    const fields = {
      ...(at ? { x: at.x, y: at.y } : {}),
      ...(from ? { from_x: from.x, from_y: from.y } : {}),
      ...(action === "key" ? { keys: args.text } : {}),
      ...(action === "type" ? typedField(args.text!, ctx) : {}),
    };
    if (browserMode) {
      const refused = await pageRefusal(target, {
        allowedDomains: settings.allowedDomains,
        guard: createUrlGuard({
          allowLoopback: ctx.config?.fermix_core?.tools?.browser?.allow_loopback === true,
          ...(deps.resolve ? { resolve: deps.resolve } : {}),
        }),
        honourLists: ctx.sandbox.mode === "standard",
      });
      if (refused) return refuse(action, refused, { ...fields, ...(target?.url ? { url: target.url } : {}) });
    }
    // [sandbox] mode "open": anywhere; "standard": into allowed_apps when the owner listed some.
    else if (
      ctx.sandbox.mode === "standard" &&
      settings.allowedApps.length &&
      !appAllowed(target, settings.allowedApps)
    ) {
      return refuse(
        action,
        `${describeWindow(target)} is not in allowed_apps (${settings.allowedApps.join(", ")}); add it to ` +
          "[fermix_core.computer_use] allowed_apps, or work in one of those",
        fields,
      );
    }
    const why = settings.confirmConsequential ? consequentialReason(action, target, args.text) : undefined;
    if (why) {
      const decision = await askOwner(`${describe(action, args, true)} into ${describeWindow(target)}, ${why}`, ctx);
      if (decision !== "confirmed") {
        return refuse(
          action,
          decision === "denied"
            ? "The owner denied this action; do not retry it. Ask them what to do instead."
            : `The owner did not answer within ${Math.round(settings.approvalTimeoutMs / 1000)} s; the action was not done.`,
          { ...fields, approval: decision },
        );
      }
    }
    await perform(action, args, at, from);
    const done = `Done: ${describe(action, args)}${at ? ` at (${args.coordinate!.join(", ")})` : ""}.`;
    if (!settings.screenshotAfter) return { content: done, trace: { action, ...fields } };
    return withImage(action, `${done} The screen now:`, await shot(), fields);
  }

  async function askOwner(what: string, ctx: ToolContext) {
    const { token, decision } = deps.approvals.request({
      conversation: ctx.conversation,
      action: what,
      timeoutMs: settings.approvalTimeoutMs,
      signal: ctx.signal,
    });
    const minutes = Math.max(1, Math.round(settings.approvalTimeoutMs / 60_000));
    // The notice's shape is what approval-request.ts and approval-notices.ts read (the token line becomes buttons).
    ctx.notify(
      `fermix asks to use the computer: ${what}\n` +
        `Confirm with /confirm ${token}, refuse with /deny ${token} (within ${minutes} min).`,
    );
    return decision;
  }

  async function perform(
    action: Action,
    args: Args,
    at: { x: number; y: number } | undefined,
    from: { x: number; y: number } | undefined,
  ): Promise<void> {
    if (action === "left_click_drag") return driver!.drag(from!.x, from!.y, at!.x, at!.y);
    if (at) await driver!.moveMouse(at.x, at.y);
    if (action === "left_click") return driver!.click("left", 1);
    if (action === "right_click") return driver!.click("right", 1);
    if (action === "middle_click") return driver!.click("middle", 1);
    if (action === "double_click") return driver!.click("left", 2);
    if (action === "scroll") return driver!.scroll(args.scroll_direction!, args.scroll_amount);
    if (action === "type") return driver!.typeText(args.text!);
    if (action === "key") return driver!.pressKeys(args.text!);
  }

  function withImage(action: Action, text: string, image: ImagePart, fields: Record<string, unknown>): ToolResult {
    return {
      content: text,
      images: [image],
      retainImages: settings.maxRetainedScreenshots,
      trace: { action, ...fields },
    };
  }
}

function refuse(action: string, content: string, fields: Record<string, unknown> = {}): ToolResult {
  return { isError: true, content, trace: { action, refused: true, ...fields } };
}

/** The typed text itself only when the owner turned content capture on (FERMIX_TRACE_CONTENT=1). */
function typedField(text: string, ctx: ToolContext): Record<string, unknown> {
  return ctx.trace?.traces.capture ? { text } : { text_chars: text.length };
}

/** `forOwner`: the approval question shows what would be typed (to the owner, never to a log or a trace). */
function describe(action: Action, args: Args, forOwner = false): string {
  if (action === "type" && forOwner) return `type ${JSON.stringify(clip(args.text!, 200))}`;
  if (action === "type") return `type ${args.text!.length} character${args.text!.length === 1 ? "" : "s"}`;
  if (action === "key") return `press ${args.text}`;
  return action.replaceAll("_", " ");
}

function picture(image: RawImage): ImagePart {
  return { type: "image", mime: "image/png", data: Buffer.from(encodePng(image)).toString("base64") };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
