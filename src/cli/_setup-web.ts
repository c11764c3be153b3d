import type { Env } from "../config/env.ts";
import { FermixError } from "../error.ts";
import { writeOut } from "./output.ts";

/**
 * `setup --web`: the only minter of a launch link — a one-time token (15 min, bound to the setup token's
 * fingerprint) in a loopback URL, opened in the browser or printed. The long-lived setup token never leaves its file.
 */
export async function setupWeb(env: Env, opts: { browser: boolean }): Promise<number> {
  const [{ fermixPaths, resolveHome }, { loadConfig }, { launchUrl, mintLaunchToken }, { DEFAULT_WEB_PORT }] =
    await Promise.all([
      import("../config/paths.ts"),
      import("../config/load.ts"),
      import("../web/launch-token.ts"),
      import("../web/server.ts"),
    ]);
  const paths = fermixPaths(resolveHome(env));
  const block = (await loadConfig(paths.config)).fermix_web;
  if (block?.enabled === false) {
    throw new FermixError(
      "web_disabled",
      "the web setup page is off ([fermix_web] enabled = false in config.toml); set it to true and run fermix restart",
    );
  }
  const { token } = mintLaunchToken(paths.web, Date.now());
  const url = launchUrl(block?.port ?? DEFAULT_WEB_PORT, token);
  const running = await import("../protocol/client.ts")
    .then(({ createDaemonClient }) => createDaemonClient(paths.socket).status())
    .then((status) => status.web?.state === "listening")
    .catch(() => false);
  const lines = [`fermix: open ${url}`, "fermix: the link works once, for 15 minutes, in a browser on this machine"];
  if (!running)
    lines.push("fermix: the daemon does not serve the page right now: run fermix start (see fermix doctor)");
  await writeOut(`${lines.join("\n")}\n`);
  if (opts.browser) (await import("./_plugins-oauth.ts")).openBrowser(url);
  return 0;
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
