import { isFermixError } from "../../error.ts";
import { defineTool } from "../tool.ts";
import DESCRIPTION from "./browser.md" with { type: "text" };
import { Args } from "./browser-params.ts";

/**
 * A real Chromium for pages that need JavaScript, a login or a click (spec: self-knowledge.md, Built-in
 * capabilities; facts §4). The session (src/browser/) launches it on first use and shuts it down when idle; every
 * request its pages make passes the same address floor as web_fetch. Screenshots go back to the model as images.
 */
export const browser = defineTool({
  name: "browser",
  description:
    "A real Chromium for JavaScript pages, logins and forms: open, snapshot, act on element refs, screenshot.",
  policy: "network",
  readOnly: false,
  deferrable: true,
  parameters: Args,
  help: DESCRIPTION,
  // Launching can take 15 s and a navigation 30 s: the registry's deadline sits above both.
  timeoutMs: 60_000,
  async execute(args, ctx) {
    const session = ctx.browser?.();
    if (!session) return { isError: true, content: "the browser is not available in this conversation" };
    try {
      // What the actions do, and the page snapshot code, load on the first call (issue 31: boot RSS, ask's import).
      const { runBrowserAction } = await import("./browser-run.ts");
      return await runBrowserAction(args, session, ctx);
    } catch (err) {
      if (isFermixError(err)) return { isError: true, content: err.message };
      const message = (err as Error).message?.split("\n")[0] ?? String(err);
      return { isError: true, content: `browser ${args.action} failed: ${message}` };
    }
  },
});
