import type { Env } from "../config/env.ts";
import { FermixError } from "../error.ts";
import { writeOut } from "./output.ts";

/**
 * `setup --web`: the only minter of a launch link — a one-time token (15 min, bound to the setup token's
 * fingerprint) in a loopback URL, opened in the browser or printed. The long-lived setup token never leaves its file.
 */
export async function setupWeb(env: Env, opts: { browser: boolean }): Promise<number> {
  const link = await mintLink(env, 0);
  if (!link) {
    throw new FermixError(
      "web_disabled",
      "the web setup page is off ([fermix_web] enabled = false in config.toml); set it to true and run fermix restart",
    );
  }
  const lines = [
    `fermix: open ${link.url}`,
    "fermix: the link works once, for 15 minutes, in a browser on this machine",
  ];
  if (!link.served) lines.push(`fermix: ${NOT_SERVED}`);
  await writeOut(`${lines.join("\n")}\n`);
  if (opts.browser) (await import("./_plugins-oauth.ts")).openBrowser(link.url);
  return 0;
}

const NOT_SERVED = "the daemon does not serve the page right now: run fermix start (see fermix doctor)";
// After setup (re)started the service, the daemon needs a moment before its page listens: a bounded wait.
const AFTER_SETUP_WAIT_MS = 10_000;

/**
 * The end of plain `fermix setup`: the rest of the settings (channels, plugins, voice notes…) are on the page, so
 * setup mints a link to it, printed, and opened when a person is at the terminal. Nothing when the page is off.
 */
export async function offerWebLink(env: Env, opts: { browser: boolean; serviceStarted: boolean }): Promise<void> {
  // Waiting is only worth it when a browser is about to open on a daemon setup has just started.
  const link = await mintLink(env, opts.browser && opts.serviceStarted ? AFTER_SETUP_WAIT_MS : 0);
  if (!link) return;
  const lines = [
    `More settings (channels, plugins, voice notes, search…) on the setup page: ${link.url}`,
    "  (the link works once, for 15 minutes, in a browser on this machine; fermix setup --web makes a new one)",
  ];
  if (!link.served) {
    lines.push(
      opts.serviceStarted
        ? "  the daemon is starting: the link works as soon as fermix status shows it running"
        : `  ${NOT_SERVED}`,
    );
  }
  await writeOut(`${lines.join("\n")}\n`);
  if (opts.browser && link.served) (await import("./_plugins-oauth.ts")).openBrowser(link.url);
}

/** A fresh launch link, and whether the daemon serves the page (waiting up to `waitMs` for it); undefined when off. */
async function mintLink(env: Env, waitMs: number): Promise<{ url: string; served: boolean } | undefined> {
  const [{ fermixPaths, resolveHome }, { loadConfig }, { launchUrl, mintLaunchToken }, { DEFAULT_WEB_PORT }] =
    await Promise.all([
      import("../config/paths.ts"),
      import("../config/load.ts"),
      import("../web/launch-token.ts"),
      import("../config/sections/web.ts"),
    ]);
  const paths = fermixPaths(resolveHome(env));
  const block = (await loadConfig(paths.config)).fermix_web;
  if (block?.enabled === false) return undefined;
  const { token } = mintLaunchToken(paths.web, Date.now());
  const url = launchUrl(block?.port ?? DEFAULT_WEB_PORT, token);
  const { createDaemonClient } = await import("../protocol/client.ts");
  const client = createDaemonClient(paths.socket);
  const listening = () =>
    client
      .status()
      .then((status) => status.web?.state === "listening")
      .catch(() => false);
  const deadline = Date.now() + waitMs;
  let served = await listening();
  while (!served && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    served = await listening();
  }
  return { url, served };
}

/** `setup --rotate-token`: a new setup token; every browser session and any unused launch link stop working. */
export async function rotateWebToken(env: Env): Promise<number> {
  const [{ fermixPaths, resolveHome }, { rotateSetupToken }] = await Promise.all([
    import("../config/paths.ts"),
    import("../web/launch-token.ts"),
  ]);
  rotateSetupToken(fermixPaths(resolveHome(env)).web);
  await writeOut(
    "fermix: a new setup token is in place; every browser is logged out (fermix setup --web to open the page again)\n",
  );
  return 0;
}
