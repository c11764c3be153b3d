import { createUrlGuard } from "../../browser/url-guard.ts";
import type { DesktopDriver, RawImage, WindowInfo } from "../../computer-use/driver-contract.ts";
import { pageRefusal } from "../../computer-use/page-target.ts";
import { encodePng } from "../../computer-use/png.ts";
import { resize } from "../../computer-use/scale.ts";
import type { ImagePart } from "../../providers/types.ts";
import type { ToolContext, ToolResult } from "../tool.ts";
import { type LastImage, regionToScreen, type ScreenRegion, toScreen, zoomSize } from "./_computer-grid.ts";
import { appAllowed, consequentialReason, describeWindow } from "./_consequential.ts";
import type { Action, Args, ComputerUseToolDeps } from "./computer-use-params.ts";

const POINTER: ReadonlySet<Action> = new Set([
  "left_click",
  "right_click",
  "middle_click",
  "double_click",
  "mouse_move",
  "left_click_drag",
  "scroll",
]);

/**
 * What computer_use does, for one tool (one turn): the driver, and the last picture it showed (the grid the
 * model's coordinates are read on). Loaded on the tool's first call (computer-use.ts): the pictures' scaling and
 * PNG encoding, the grid and the page checks are nothing an idle daemon or a turn that never looks should carry.
 */
export function computerUseRun(deps: ComputerUseToolDeps): (args: Args, ctx: ToolContext) => Promise<ToolResult> {
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

  return run;

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
