import type { UrlGuard } from "../browser/url-guard.ts";
import type { WindowInfo } from "./driver-contract.ts";

const SECTION = "[fermix_core.computer_use]";

/**
 * Where input may go in browser mode, judged on the page's address before each input action: never onto a page
 * the browser tool itself could not open (the web_fetch address floor: a private, link-local or metadata address,
 * or this machine unless [fermix_core.tools.browser] allow_loopback), whatever the posture; and, when the owner
 * listed allowed_domains and the posture honours the lists (`standard`, as allowed_apps in host mode), only onto
 * a page whose host is one of them or a subdomain of one. Undefined when the input may go ahead.
 */
export async function pageRefusal(
  page: WindowInfo | undefined,
  rules: { allowedDomains: readonly string[]; guard: UrlGuard; honourLists: boolean },
): Promise<string | undefined> {
  const url = page?.url ?? "";
  const verdict = await rules.guard(url || "about:blank");
  if (!verdict.ok) return `input into this page is refused: ${verdict.reason}`;
  if (!rules.honourLists || rules.allowedDomains.length === 0) return undefined;
  const host = hostOf(url);
  if (host && rules.allowedDomains.some((entry) => domainMatches(host, entry))) return undefined;
  return (
    `${host ? `the page's domain ${host}` : `the page ${url || "about:blank"}`} is not in allowed_domains ` +
    `(${rules.allowedDomains.join(", ")}); add it to ${SECTION} allowed_domains, or open a page on one of those`
  );
}

/** `example.org` allows example.org and www.example.org, never notexample.org; an entry may be written as a URL. */
export function domainMatches(host: string, entry: string): boolean {
  const domain = normalise(entry.includes("://") ? (hostOf(entry) ?? "") : entry.replace(/^\*?\./, ""));
  const name = normalise(host);
  return domain.length > 0 && (name === domain || name.endsWith(`.${domain}`));
}

function hostOf(url: string): string | undefined {
  try {
    const host = new URL(url).hostname;
    return host ? normalise(host.replace(/^\[|\]$/g, "")) : undefined;
  } catch {
    return undefined;
  }
}

function normalise(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, "");
}
