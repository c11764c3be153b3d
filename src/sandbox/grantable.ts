import { isAbsolute } from "node:path";
import { expandHome, isWithin, tildify } from "./_path.ts";
import { canonicalize } from "./canonical.ts";
import type { SandboxContext } from "./sandbox-context.ts";
import type { Denial } from "./types.ts";

type Grant = { ok: true; path: string } | Denial;

/**
 * Whether `input` may become a sandbox root: never the home itself or anything above it (that would be
 * `open` mode by the back door), never FERMIX_HOME or what it holds or contains, never a protected or
 * blocked path. The directory-approval loop asks this before it even shows the owner a prompt.
 */
export function judgeGrant(ctx: SandboxContext, input: string, opts: { requireDirectory: boolean }): Grant {
  if (input.includes("\0")) return invalid("the path contains a NUL byte");
  const expanded = expandHome(input.trim(), ctx.home);
  if (!expanded) return invalid("the path is empty");
  if (!isAbsolute(expanded)) return invalid(`${input} is relative; give an absolute path (or one starting with ~/)`);
  const resolved = canonicalize(expanded);
  if (!resolved.ok) return invalid(resolved.reason);
  const path = resolved.path;
  const refuse = (code: "protected" | "blocked", why: string): Denial => ({
    ok: false,
    code,
    path,
    reason: `${path} can't be granted: ${why}`,
  });
  if (path === ctx.home) {
    return refuse("protected", `it is your home directory; set [sandbox] mode = "open" to work across your home`);
  }
  if (isWithin(ctx.home, path)) return refuse("protected", `it contains your home directory (${ctx.home})`);
  if (isWithin(path, ctx.fermixHome) || isWithin(ctx.fermixHome, path)) {
    const where = isWithin(path, ctx.fermixHome) ? "is inside" : "contains";
    return refuse("protected", `it ${where} fermix's own directory ${ctx.fermixHome}`);
  }
  for (const step of [path, ...resolved.links]) {
    const hit = ctx.protected.check(step, step === path);
    if (hit) return refuse("protected", hit.reason);
  }
  // A root may contain a blocked directory (grant ~/work, block ~/work/private): blocked wins inside it.
  const blocked = ctx.blocked.find((b) => isWithin(path, b));
  if (blocked)
    return refuse("blocked", `it is inside ${tildify(blocked, ctx.home)}, listed in [sandbox] blocked_roots`);
  if (opts.requireDirectory) {
    if (!resolved.stat) return { ok: false, code: "not_found", path, reason: `${path} does not exist` };
    if (!resolved.stat.isDirectory()) return { ok: false, code: "invalid", path, reason: `${path} is not a directory` };
  }
  return { ok: true, path };
}

function invalid(reason: string): Denial {
  return { ok: false, code: "invalid", reason };
}
