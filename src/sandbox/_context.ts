import { isAbsolute, resolve } from "node:path";
import { defineError } from "../error.ts";
import { expandHome, isWithin } from "./_path.ts";
import { canonicalize } from "./canonical.ts";
import { judgeGrant } from "./grantable.ts";
import { protectedPaths } from "./protected-paths.ts";
import type { SandboxContext } from "./sandbox-context.ts";
import type { SandboxMode } from "./types.ts";

/** The [sandbox] table of config.toml, as the schema accepts it. */
export type SandboxConfig = {
  mode?: SandboxMode;
  workspace_root?: string;
  allowed_roots?: string[];
  blocked_roots?: string[];
};

export const SandboxConfigInvalid = defineError<{ file: string; key: string }>("sandbox_config_invalid");

/**
 * Resolves the config into canonical roots. A root that `fermix grant` would refuse (the home, `/`,
 * FERMIX_HOME, ~/.ssh …) fails loudly here rather than being quietly honoured or quietly dropped: it can
 * only come from a hand edit, and the person who made it should learn why it does not work.
 */
export function buildContext(opts: {
  userHome: string;
  fermixHome: string;
  config: SandboxConfig | undefined;
  configFile: string;
}): SandboxContext {
  const { configFile } = opts;
  const fail = (key: string, message: string) =>
    SandboxConfigInvalid(`${configFile}: [sandbox] ${key}: ${message}`, { file: configFile, key });
  const homeAsGiven = resolve(opts.userHome);
  const home = canonical(homeAsGiven, () => fail("home", `cannot resolve the home ${opts.userHome}`));
  const fermixHome = canonical(resolve(opts.fermixHome), () => fail("home", `cannot resolve ${opts.fermixHome}`));
  const defaultWorkspace = `${fermixHome}/workspace`;
  const toCanonical = (key: string, entry: string) => {
    const expanded = expandHome(entry, home);
    if (!isAbsolute(expanded)) throw fail(key, `"${entry}" is relative; use an absolute path or one starting with ~/`);
    return canonical(expanded, () => fail(key, `cannot resolve "${entry}"`));
  };
  const ctx: SandboxContext = {
    mode: opts.config?.mode ?? "standard",
    home,
    fermixHome,
    defaultWorkspace,
    workspace: defaultWorkspace,
    granted: [],
    blocked: [...new Set((opts.config?.blocked_roots ?? []).map((b) => toCanonical("blocked_roots", b)))],
    protected: protectedPaths({
      homes: [homeAsGiven, home],
      fermixHome,
      exempt: [homeAsGiven, home, defaultWorkspace],
    }),
    configFile,
  };
  const asRoot = (key: string, entry: string) => {
    const path = toCanonical(key, entry);
    if (key === "workspace_root" && isWithin(path, defaultWorkspace)) return path;
    const grant = judgeGrant(ctx, path, { requireDirectory: false });
    if (!grant.ok) throw fail(key, `"${entry}": ${grant.reason}`);
    return grant.path;
  };
  if (opts.config?.workspace_root) ctx.workspace = asRoot("workspace_root", opts.config.workspace_root);
  ctx.granted = [...new Set((opts.config?.allowed_roots ?? []).map((r) => asRoot("allowed_roots", r)))];
  return ctx;
}

function canonical(path: string, onFailure: () => Error): string {
  const resolved = canonicalize(path);
  if (!resolved.ok) throw onFailure();
  return resolved.path;
}
