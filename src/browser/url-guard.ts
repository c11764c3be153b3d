import { blockedAddressReason, parseIPv4 } from "../net/address-policy.ts";
import { resolveWithDns } from "../net/dns-resolver.ts";
import { parseTarget } from "../net/parse-target.ts";
import type { Resolver } from "../net/types.ts";

export type UrlVerdict = { ok: true } | { ok: false; reason: string };
export type UrlGuard = (url: string) => Promise<UrlVerdict>;

/**
 * What the browser may load: the web_fetch floor (src/net/: no private, link-local, metadata or reserved
 * address, by literal or by DNS answer; http and https only), with one owner switch — pages on this machine
 * (localhost, 127.0.0.0/8, ::1) when [fermix_core.tools.browser] allow_loopback = true. Every request the
 * page makes is judged, not only the address typed: a public page cannot pull in the router's admin page.
 * Chromium resolves names again itself, so a rebinding DNS answer could still differ; the check is the floor
 * web_fetch holds for everything it can see, not a substitute for the owner's firewall.
 */
export function createUrlGuard(opts: { allowLoopback: boolean; resolve?: Resolver }): UrlGuard {
  const resolve = opts.resolve ?? resolveWithDns;
  return async (raw) => {
    if (raw === "about:blank" || raw.startsWith("data:") || raw.startsWith("blob:")) return { ok: true };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: `refused ${raw}: not a valid URL` };
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return {
        ok: false,
        reason: `refused ${url.href}: only http and https pages open in the browser, not ${url.protocol}`,
      };
    }
    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    if (isLoopbackHost(host)) {
      return opts.allowLoopback
        ? { ok: true }
        : {
            ok: false,
            reason: `refused ${url.href}: ${host} is this machine; set [fermix_core.tools.browser] allow_loopback = true in config.toml to open local pages`,
          };
    }
    try {
      const target = parseTarget(raw);
      if (target.literal) return { ok: true };
      const addresses = await resolve(target.host);
      for (const address of addresses) {
        if (opts.allowLoopback && isLoopbackHost(address)) continue;
        const why = blockedAddressReason(address);
        if (why) return { ok: false, reason: `refused ${url.href}: ${target.host} resolves to ${address}, ${why}` };
      }
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
  };
}

function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, "");
  if (name === "localhost" || name.endsWith(".localhost") || name === "::1") return true;
  const v4 = parseIPv4(name);
  return v4 !== undefined && v4 >>> 24 === 127;
}
