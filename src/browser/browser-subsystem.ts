import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { Log } from "../observability/log.ts";
import { defineSubsystem } from "../subsystem.ts";
import { createAppBrowser } from "./app-browser.ts";
import type { BrowserSession } from "./browser-session.ts";

export type BrowserDeps = { paths: FermixPaths; liveConfig: () => Config; log: Log };

/** One Chromium per process, made on the browser tool's first call (synchronously: a tool asks for it), closed with the app. */
export const browserSubsystem = defineSubsystem({
  name: "browser",
  // Offered to every operator turn; nothing runs until the tool is first called.
  wanted: () => true,
  load: (deps: BrowserDeps): BrowserSession =>
    createAppBrowser({ paths: deps.paths, config: deps.liveConfig, log: deps.log.withTag("browser") }),
  stop: (session) => session.stop(),
});
